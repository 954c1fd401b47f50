import { scaleLinear, scaleUtc } from 'd3-scale';
import { line } from 'd3-shape';
import { escapeHtml } from '../pages/markdown.ts';
import type { ChartPoint } from './series-summary.ts';

/**
 * A word-sized line of a price over time, for a table cell: inline SVG drawn on the server (no
 * script, no request), its accessible name given by the page in its own language (e.g.
 * "24 hours: low 64,000, high 65,200, +1.2%"). Scales and path from d3-scale and d3-shape.
 */

export interface SparklineInput {
  /** Oldest first; at least one. */
  points: readonly ChartPoint[];
  /** The time span drawn (ISO 8601). */
  range: { from: string; to: string };
  /** The accessible name: what the line shows, in words. */
  label: string;
}

const width = 120;
const height = 32;
const inset = 3;

export function renderSparkline(input: SparklineInput): string {
  const { points, range, label } = input;
  const values = points.map((point) => point.value);
  const low = Math.min(...values);
  const high = Math.max(...values);
  const y = scaleLinear()
    .domain(high > low ? [low, high] : [low - 1, high + 1])
    .range([height - inset, inset]);
  const x = scaleUtc()
    .domain([Date.parse(range.from), Date.parse(range.to)])
    .range([inset, width - inset]);
  const xOf = (point: ChartPoint) => x(Date.parse(point.at));
  const yOf = (point: ChartPoint) => y(point.value);
  const path = line<ChartPoint>().x(xOf).y(yOf).digits(0)(points as ChartPoint[]) ?? '';
  const last = points.at(-1) as ChartPoint;
  return `<svg class="sparkline" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${escapeHtml(label)}" direction="ltr" focusable="false"><path class="chart-line" d="${path}" fill="none"/><circle class="sparkline-last" cx="${Math.round(xOf(last))}" cy="${Math.round(yOf(last))}" r="2.5"/></svg>`;
}
