/**
 * A coin's sell price over time, as the stored snapshots recorded it, and how a long series is
 * thinned for drawing without losing what a reader looks for: the lows, the highs and the last.
 */

/** One coin's sell price in one committed snapshot. */
export interface PricePoint {
  /** The snapshot's `updated_at` (ISO 8601). */
  at: string;
  sell_usdt: number;
  /** Null while the tether rate in toman was unknown. */
  sell_irt: number | null;
}

/** Which snapshots a history read covers: `from` ≤ updated_at ≤ `to` (ISO 8601), at most `maxPoints` points. */
export interface HistoryRange {
  from: string;
  to: string;
  /** At least 6: each bucket may keep four points, and the first and last are always kept. */
  maxPoints: number;
}

/**
 * Thins `points` (oldest first, all inside `range`) to at most `range.maxPoints`: the range is cut
 * into equal time buckets, and each keeps the points holding its lowest and highest price in
 * tether and in toman (so every extreme of the whole series survives), in time order; the first
 * and last points are always kept. A series already short enough comes back as it is.
 */
export function downsample(points: readonly PricePoint[], range: HistoryRange): PricePoint[] {
  if (points.length <= range.maxPoints) return [...points];
  const first = points[0] as PricePoint;
  const last = points.at(-1) as PricePoint;
  const bucketCount = Math.max(1, Math.floor((range.maxPoints - 2) / 4));
  const fromMs = Date.parse(range.from);
  const spanMs = Math.max(1, Date.parse(range.to) - fromMs);
  const kept = new Set<number>();
  // The first and last points are kept apart, so a change over the range reads the same thinned or not.
  let bucketStart = 1;
  while (bucketStart < points.length - 1) {
    const bucket = bucketOf(points[bucketStart] as PricePoint, fromMs, spanMs, bucketCount);
    let end = bucketStart;
    while (
      end + 1 < points.length - 1 &&
      bucketOf(points[end + 1] as PricePoint, fromMs, spanMs, bucketCount) === bucket
    )
      end++;
    for (const index of extremesBetween(points, bucketStart, end)) kept.add(index);
    bucketStart = end + 1;
  }
  const indexes = [...kept].sort((a, b) => a - b);
  return [first, ...indexes.map((index) => points[index] as PricePoint), last];
}

function bucketOf(point: PricePoint, fromMs: number, spanMs: number, bucketCount: number): number {
  const share = (Date.parse(point.at) - fromMs) / spanMs;
  return Math.min(bucketCount - 1, Math.max(0, Math.floor(share * bucketCount)));
}

/** Indexes of the lowest and highest tether and toman prices among points[first..last]. */
function extremesBetween(points: readonly PricePoint[], first: number, last: number): number[] {
  let minUsdt = first;
  let maxUsdt = first;
  let minIrt = -1;
  let maxIrt = -1;
  for (let index = first; index <= last; index++) {
    const point = points[index] as PricePoint;
    if (point.sell_usdt < (points[minUsdt] as PricePoint).sell_usdt) minUsdt = index;
    if (point.sell_usdt > (points[maxUsdt] as PricePoint).sell_usdt) maxUsdt = index;
    if (point.sell_irt !== null) {
      if (minIrt < 0 || point.sell_irt < ((points[minIrt] as PricePoint).sell_irt as number)) minIrt = index;
      if (maxIrt < 0 || point.sell_irt > ((points[maxIrt] as PricePoint).sell_irt as number)) maxIrt = index;
    }
  }
  return [minUsdt, maxUsdt, minIrt, maxIrt].filter((index) => index >= 0);
}

/** Groups rows read oldest first into one series per symbol, each downsampled to the range. */
export function seriesBySymbol(
  rows: Iterable<PricePoint & { symbol: string }>,
  range: HistoryRange,
): Map<string, PricePoint[]> {
  const grouped = new Map<string, PricePoint[]>();
  for (const { symbol, ...point } of rows) {
    const series = grouped.get(symbol);
    if (series) series.push(point);
    else grouped.set(symbol, [point]);
  }
  for (const [symbol, series] of grouped) grouped.set(symbol, downsample(series, range));
  return grouped;
}
