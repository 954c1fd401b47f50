import { scaleLinear, scaleUtc } from 'd3-scale';
import { line } from 'd3-shape';
import { escapeHtml } from '../pages/markdown.ts';
import type { ChartFormat, ChartText } from './chart-text.ts';
import { type ChartPoint, type SeriesSummary, summarizeSeries } from './series-summary.ts';

/**
 * A price chart as inline SVG, drawn on the server: it needs no script and no request of its own,
 * so the page's Content-Security-Policy stays `default-src 'none'`. Scales, ticks and the line's
 * path come from d3-scale and d3-shape (maintained, no DOM needed); only the layout of axes and
 * marks is written here. Colours come from the page's stylesheet (classes), never inline styles.
 *
 * Screen readers get the facts twice: the text summary that describes the SVG, and a data table
 * in a disclosure.
 */

export interface PriceChartInput {
  /** Unique on the page: the chart's elements are referenced by ids built from it. */
  id: string;
  /** Oldest first. */
  points: readonly ChartPoint[];
  /** The time span drawn (ISO 8601), so a gap in the data shows as one. */
  range: { from: string; to: string };
  text: ChartText;
}

const width = 480;
const height = 250;
const margin = { top: 24, right: 16, bottom: 44, bottomLabel: 8, left: 12 };
/** Average advance of a digit of the 13 px axis font, to make room for the longest tick label. */
const digitWidth = 7.8;
/** Rows of the data table at most (besides the low, the high and the last). */
const tableRows = 24;

/** The text summary of a series (null when it is empty), as the chart's caption states it. */
export function describeSeries(summary: SeriesSummary, text: ChartText): string {
  const { format, labels } = text;
  return labels.summary({
    low: format.formatNumber(summary.low.value),
    lowAt: format.formatTime(summary.low.at),
    high: format.formatNumber(summary.high.value),
    highAt: format.formatTime(summary.high.at),
    last: format.formatNumber(summary.last.value),
    lastAt: format.formatTime(summary.last.at),
    change: summary.changePercent === null ? null : format.formatChange(summary.changePercent),
  });
}

/** A `<figure>`: caption, SVG chart, text summary and data table; or the no-data notice. */
export function renderPriceChart(input: PriceChartInput): string {
  const { id, points, text } = input;
  const { labels } = text;
  const summary = summarizeSeries(points);
  const caption = `<figcaption id="${id}-title" class="chart-title">${escapeHtml(labels.title)}</figcaption>`;
  if (summary === null) {
    return `<figure class="chart" id="${id}">${caption}<p class="chart-empty">${escapeHtml(labels.noData)}</p></figure>\n`;
  }
  const description = describeSeries(summary, text);
  return [
    `<figure class="chart" id="${id}">`,
    caption,
    renderSvg(input, summary),
    `<p id="${id}-summary" class="chart-summary">${escapeHtml(description)}</p>`,
    renderTable(points, summary, text, id),
    '</figure>\n',
  ].join('\n');
}

function renderSvg(input: PriceChartInput, summary: SeriesSummary): string {
  const { id, points, range, text } = input;
  const { format, labels } = text;
  const fromMs = Date.parse(range.from);
  const toMs = Date.parse(range.to);
  const y = scaleLinear().domain(paddedDomain(summary)).nice(4);
  const valueTicks = y.ticks(4);
  const tickLabels = valueTicks.map((value) => format.formatNumber(value));
  const left = margin.left + Math.ceil(Math.max(...tickLabels.map((label) => label.length)) * digitWidth) + 8;
  const right = width - margin.right;
  const bottom = height - margin.bottom;
  y.range([bottom, margin.top]);
  const x = scaleUtc().domain([fromMs, toMs]).range([left, right]);
  const xOf = (point: ChartPoint) => round(x(Date.parse(point.at)));
  const yOf = (point: ChartPoint) => round(y(point.value));
  const path = line<ChartPoint>().x(xOf).y(yOf).digits(1)(points) ?? '';

  const grid = valueTicks
    .map((value, index) => {
      const at = round(y(value));
      return `<line class="chart-grid" x1="${left}" x2="${right}" y1="${at}" y2="${at}"/><text class="chart-tick" x="${left - 6}" y="${at}" dy="0.32em" text-anchor="end">${escapeHtml(tickLabels[index] as string)}</text>`;
    })
    .join('');
  const spanMs = toMs - fromMs;
  const timeTicks = x
    .ticks(spanMs > 2 * 86_400_000 ? 7 : 6)
    .map((date) => {
      const at = round(x(date));
      return `<line class="chart-axis" x1="${at}" x2="${at}" y1="${bottom}" y2="${bottom + 5}"/><text class="chart-tick" x="${at}" y="${bottom + 18}" text-anchor="middle">${escapeHtml(format.formatAxisTime(date.toISOString(), spanMs))}</text>`;
    })
    .join('');
  const marks = markedPoints(summary, labels)
    .map((marked) => mark(marked, xOf, yOf, format))
    .join('');
  // direction="ltr": time runs left to right on a Persian page too, and text-anchor keeps its meaning.
  return [
    // Named by the caption and described by the summary under it, so nothing is read twice.
    `<svg class="chart-svg" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="${id}-title" aria-describedby="${id}-summary" direction="ltr" focusable="false">`,
    grid,
    `<line class="chart-axis" x1="${left}" x2="${right}" y1="${bottom}" y2="${bottom}"/>`,
    `<line class="chart-axis" x1="${left}" x2="${left}" y1="${margin.top}" y2="${bottom}"/>`,
    timeTicks,
    `<text class="chart-axis-label" x="${round((left + right) / 2)}" y="${height - margin.bottomLabel}" text-anchor="middle">${escapeHtml(labels.timeAxis)}</text>`,
    `<text class="chart-axis-label" x="${left}" y="${margin.top - 10}" text-anchor="start">${escapeHtml(labels.valueAxis)}</text>`,
    `<path class="chart-line" d="${path}" fill="none"/>`,
    marks,
    '</svg>',
  ].join('\n');
}

/** The value domain, widened around a flat series so its line sits mid-chart. */
function paddedDomain(summary: SeriesSummary): [number, number] {
  const { low, high } = summary;
  if (high.value > low.value) return [low.value, high.value];
  const pad = low.value === 0 ? 1 : Math.abs(low.value) * 0.01;
  return [low.value - pad, high.value + pad];
}

interface MarkedPoint {
  point: ChartPoint;
  /** Low, high and/or last: a point that is two of them is marked once, with both words. */
  words: string[];
  high: boolean;
  last: boolean;
}

function markedPoints(summary: SeriesSummary, labels: ChartText['labels']): MarkedPoint[] {
  const marked = new Map<ChartPoint, MarkedPoint>();
  const add = (point: ChartPoint, word: string, kind: 'low' | 'high' | 'last') => {
    const entry = marked.get(point) ?? { point, words: [], high: false, last: false };
    entry.words.push(word);
    if (kind === 'high') entry.high = true;
    if (kind === 'last') entry.last = true;
    marked.set(point, entry);
  };
  add(summary.high, labels.high, 'high');
  add(summary.low, labels.low, 'low');
  add(summary.last, labels.last, 'last');
  return [...marked.values()];
}

/** A dot on a marked point with its words and value beside it, kept inside the plot. */
function mark(
  marked: MarkedPoint,
  xOf: (point: ChartPoint) => number,
  yOf: (point: ChartPoint) => number,
  format: ChartFormat,
): string {
  const cx = xOf(marked.point);
  const cy = yOf(marked.point);
  const anchor = cx > width * 0.7 ? 'end' : cx < width * 0.3 ? 'start' : 'middle';
  const dx = anchor === 'end' ? -8 : anchor === 'start' ? 8 : 0;
  // The high's label goes above its dot, the others' below, unless that leaves the plot.
  const above = marked.high ? cy - 10 > margin.top : cy + 18 > height - margin.bottom;
  const ty = round(above ? cy - 9 : cy + 17);
  const kind = marked.last ? ' chart-mark-last' : '';
  return `<g class="chart-mark${kind}"><circle cx="${cx}" cy="${cy}" r="4"/><text x="${round(cx + dx)}" y="${ty}" text-anchor="${anchor}">${escapeHtml(`${marked.words.join(', ')} ${format.formatNumber(marked.point.value)}`)}</text></g>`;
}

/** The data table: evenly spaced rows plus the low, the high and the last, each row's mark named. */
function renderTable(
  points: readonly ChartPoint[],
  summary: SeriesSummary,
  text: ChartText,
  id: string,
): string {
  const { labels, format } = text;
  const step = Math.max(1, Math.ceil(points.length / tableRows));
  const chosen = new Set<ChartPoint>(points.filter((_point, index) => index % step === 0));
  for (const point of [summary.low, summary.high, summary.last]) chosen.add(point);
  const rows = points
    .filter((point) => chosen.has(point))
    .map((point) => {
      const marks = [
        point === summary.low ? labels.low : '',
        point === summary.high ? labels.high : '',
        point === summary.last ? labels.last : '',
      ].filter((word) => word !== '');
      return `<tr><td>${escapeHtml(format.formatTime(point.at))}</td><td>${escapeHtml(format.formatNumber(point.value))}</td><td>${escapeHtml(marks.join(', '))}</td></tr>`;
    })
    .join('\n');
  return [
    `<details class="chart-data"><summary>${escapeHtml(labels.dataTable)}</summary>`,
    `<div class="table-scroll" role="region" tabindex="0" aria-labelledby="${id}-table-caption">`,
    `<table><caption id="${id}-table-caption">${escapeHtml(labels.title)}</caption>`,
    `<thead><tr><th scope="col">${escapeHtml(labels.timeAxis)}</th><th scope="col">${escapeHtml(labels.valueAxis)}</th><th scope="col">${escapeHtml(labels.markColumn)}</th></tr></thead>`,
    `<tbody>\n${rows}\n</tbody></table></div></details>`,
  ].join('\n');
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
