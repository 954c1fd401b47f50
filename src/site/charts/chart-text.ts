/**
 * What a chart says in words, injected by the page so one renderer serves every language: the
 * renderers hold no text of their own, only layout.
 */

/** The summary's facts, already formatted for the page's language. */
export interface SummaryFacts {
  low: string;
  lowAt: string;
  high: string;
  highAt: string;
  last: string;
  lastAt: string;
  /** Change from the first point to the last; null when it cannot be computed. */
  change: string | null;
}

export interface ChartLabels {
  /** Visible caption and accessible name, e.g. "BTC in tether (USDT), last 24 hours". */
  title: string;
  /** Names the value axis with its unit, e.g. "Sell price (USDT)". */
  valueAxis: string;
  /** Names the time axis, e.g. "Time (UTC)". */
  timeAxis: string;
  /** Words beside the marked points. */
  low: string;
  high: string;
  last: string;
  /** The disclosure that holds the data table, e.g. "Data table". */
  dataTable: string;
  /** Heading of the table's column that says which row is the low, the high or the last. */
  markColumn: string;
  /** Shown instead of a chart when the range holds no price yet. */
  noData: string;
  /** The text summary: one or two sentences built from the formatted facts. */
  summary(facts: SummaryFacts): string;
}

export interface ChartFormat {
  /** A price without its unit (the axis names the unit): `67,321.45`. */
  formatNumber(value: number): string;
  /** A full time, for the summary and the data table: `2025-06-01 10:20 UTC`. */
  formatTime(iso: string): string;
  /** A short time for the axis ticks; `spanMs` is the chart's time span (24 h → hours, 7 days → dates). */
  formatAxisTime(iso: string, spanMs: number): string;
  /** A change in percent with its sign: `+1.84%`. */
  formatChange(percent: number): string;
}

/** Everything a chart renderer needs that is not data. */
export interface ChartText {
  labels: ChartLabels;
  format: ChartFormat;
}
