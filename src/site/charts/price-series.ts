import type { HistoryRange, PricePoint } from '../../domain/price-history.ts';
import type { ChartPoint } from './series-summary.ts';

/** The two currencies a price is published in. */
export type PriceCurrency = 'usdt' | 'irt';

/** The spans the site draws. */
export const dayMs = 24 * 60 * 60 * 1000;
export const weekMs = 7 * dayMs;

/** The span of `spanMs` that ends at `endIso` (a snapshot's updated_at), read as at most `maxPoints` points. */
export function rangeEnding(endIso: string, spanMs: number, maxPoints: number): HistoryRange {
  return { from: new Date(Date.parse(endIso) - spanMs).toISOString(), to: endIso, maxPoints };
}

/** One currency's series out of a history; points without a toman price are left out of the toman one. */
export function seriesOf(points: readonly PricePoint[], currency: PriceCurrency): ChartPoint[] {
  const series: ChartPoint[] = [];
  for (const point of points) {
    const value = currency === 'usdt' ? point.sell_usdt : point.sell_irt;
    if (value !== null) series.push({ at: point.at, value });
  }
  return series;
}
