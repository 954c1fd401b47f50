import type { PricePoint } from '../../domain/price-history.ts';
import type { SnapshotStore } from '../../store/types.ts';
import { dayMs, type PriceCurrency, rangeEnding, seriesOf, weekMs } from './price-series.ts';
import { type ChartPoint, type SeriesSummary, summarizeSeries } from './series-summary.ts';

/** The store's history reads, all the site needs of it. */
export type PriceHistorySource = Pick<SnapshotStore, 'priceHistory' | 'priceHistories'>;

/**
 * Points drawn at most: a day at the default 10-minute refresh is 144 snapshots and is drawn
 * whole; a week (1008) is thinned, keeping its extremes, to what a 480-unit-wide chart can show.
 */
const chartPoints = 200;
/**
 * A sparkline is 120 px wide: 26 points (the first, the last and the extremes of six buckets) draw
 * its shape, and keep a list of 150 coins light (each line about 200 bytes).
 */
export const sparklinePoints = 26;

/** One currency over one span: the points to draw and what they say. */
export interface PeriodSeries {
  days: 1 | 7;
  currency: PriceCurrency;
  range: { from: string; to: string };
  points: ChartPoint[];
  /** Null when the span holds no price. */
  summary: SeriesSummary | null;
}

/** A coin's history as its page shows it: 24 hours and 7 days, each in tether and in toman. */
export interface CoinHistory {
  periods: PeriodSeries[];
}

/** Reads a coin's last 24 hours and 7 days up to `endIso` (the served snapshot's time). */
export async function readCoinHistory(
  store: PriceHistorySource,
  symbol: string,
  endIso: string,
): Promise<CoinHistory> {
  const spans = [
    { days: 1 as const, range: rangeEnding(endIso, dayMs, chartPoints) },
    { days: 7 as const, range: rangeEnding(endIso, weekMs, chartPoints) },
  ];
  const histories = await Promise.all(spans.map((span) => store.priceHistory(symbol, span.range)));
  const periods = spans.flatMap((span, index) =>
    (['usdt', 'irt'] as const).map((currency) =>
      periodSeries(span.days, currency, span.range, histories[index] ?? []),
    ),
  );
  return { periods };
}

export function periodSeries(
  days: 1 | 7,
  currency: PriceCurrency,
  range: { from: string; to: string },
  history: readonly PricePoint[],
): PeriodSeries {
  const points = seriesOf(history, currency);
  return {
    days,
    currency,
    range: { from: range.from, to: range.to },
    points,
    summary: summarizeSeries(points),
  };
}
