/**
 * The facts a reader takes from a price chart, computed once so the picture, its text summary,
 * its data table and the Markdown form all state the same numbers.
 */

/** One price at one time (ISO 8601), in the one currency a chart shows. */
export interface ChartPoint {
  at: string;
  value: number;
}

export interface SeriesSummary {
  low: ChartPoint;
  high: ChartPoint;
  first: ChartPoint;
  last: ChartPoint;
  /** From the first point to the last, in percent; null when the first is 0. */
  changePercent: number | null;
}

/** Null for an empty series. The earliest of equal lows (or highs) is the one reported. */
export function summarizeSeries(points: readonly ChartPoint[]): SeriesSummary | null {
  const first = points[0];
  const last = points.at(-1);
  if (first === undefined || last === undefined) return null;
  let low = first;
  let high = first;
  for (const point of points) {
    if (point.value < low.value) low = point;
    if (point.value > high.value) high = point;
  }
  const changePercent = first.value === 0 ? null : ((last.value - first.value) / first.value) * 100;
  return { low, high, first, last, changePercent };
}
