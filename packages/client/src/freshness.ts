import type { RateRow } from './contract.ts';

/**
 * A row's freshness comes from its own `as_of`: when that currency's price last moved. The
 * response's `updated_at` is only when the whole list was committed (every 10 minutes); a row
 * can be hours older than that, so `updated_at` is never a row's time.
 */

/** Seconds since the row's price last moved (`as_of`), never negative. */
export function rowAgeSeconds(row: Pick<RateRow, 'as_of'>, nowMs: number = Date.now()): number {
  return Math.max(0, (nowMs - Date.parse(row.as_of)) / 1000);
}

/** True when the row's `as_of` is more than `maxAgeSeconds` old (or unreadable). */
export function isStale(
  row: Pick<RateRow, 'as_of'>,
  maxAgeSeconds: number,
  nowMs: number = Date.now(),
): boolean {
  const age = rowAgeSeconds(row, nowMs);
  return Number.isNaN(age) || age > maxAgeSeconds;
}
