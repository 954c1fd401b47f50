import type { ChartText } from './chart-text.ts';
import type { CoinHistory, PeriodSeries } from './coin-history.ts';
import { renderPriceChart } from './price-chart.ts';
import type { PriceCurrency } from './price-series.ts';
import { renderSparkline } from './sparkline.ts';

/**
 * A coin's price history in a page's language: the facts as a Markdown table, the charts as HTML,
 * and the coins list's 24-hour column. The words and formats come from the page (HistoryWords);
 * nothing here is in any one language.
 */

export interface HistoryWords {
  chartText(symbol: string, currency: PriceCurrency, days: number): ChartText;
  /** Unit after an amount (`USDT`, `toman`). */
  unit: Record<PriceCurrency, string>;
  /** A row of the facts table: the period and its currency (`last 24 hours, in USDT`). */
  periodRow(days: number, currency: PriceCurrency): string;
  /** The facts table's header row (Markdown): period, low, high, last, change. */
  factsHeader: string;
  notAvailable: string;
  /** Said instead of the facts when the store cannot give the history now. */
  unavailable: string;
  /** An amount without its unit, every significant digit kept. */
  amount(value: number): string;
  change(percent: number): string;
  /** The sparkline's accessible name from its formatted facts. */
  trendLabel(low: string, high: string, change: string | null): string;
}

/** The facts and the charts of a coin's history. */
export interface RenderedHistory {
  facts: string;
  charts: string;
}

function amount(value: number, period: PeriodSeries, words: HistoryWords): string {
  return `${words.amount(value)} ${words.unit[period.currency]}`;
}

function factsRow(period: PeriodSeries, words: HistoryWords): string {
  const name = words.periodRow(period.days, period.currency);
  const { summary } = period;
  const none = words.notAvailable;
  if (summary === null) return `| ${name} | ${none} | ${none} | ${none} | ${none} |`;
  const change = summary.changePercent === null ? none : words.change(summary.changePercent);
  return `| ${name} | ${amount(summary.low.value, period, words)} | ${amount(summary.high.value, period, words)} | ${amount(summary.last.value, period, words)} | ${change} |`;
}

export function renderHistory(symbol: string, history: CoinHistory, words: HistoryWords): RenderedHistory {
  const facts = [
    words.factsHeader,
    '|---|---|---|---|---|',
    ...history.periods.map((period) => factsRow(period, words)),
  ].join('\n');
  const charts = history.periods
    .map((period) =>
      renderPriceChart({
        id: `chart-${period.days}d-${period.currency}`,
        points: period.points,
        range: period.range,
        text: words.chartText(symbol, period.currency, period.days),
      }),
    )
    .join('');
  return { facts, charts };
}

/** The list's 24-hour column: a sparkline named by its facts, and the same facts as Markdown. */
export interface RenderedTrend {
  html: string;
  markdown: string;
}

export function renderTrend(period: PeriodSeries, words: HistoryWords): RenderedTrend {
  const { summary } = period;
  if (summary === null) return { html: words.notAvailable, markdown: words.notAvailable };
  const low = amount(summary.low.value, period, words);
  const high = amount(summary.high.value, period, words);
  const change = summary.changePercent === null ? null : words.change(summary.changePercent);
  return {
    html: renderSparkline({
      points: period.points,
      range: period.range,
      label: words.trendLabel(low, high, change),
    }),
    markdown: `${low} – ${high}${change === null ? '' : `, ${change}`}`,
  };
}
