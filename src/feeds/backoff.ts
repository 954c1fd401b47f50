/**
 * Retry timing shared by the source adapters.
 */

/**
 * Exponential backoff with "full jitter": a uniform delay in [0, min(max, base × 2^attempt)).
 * Spreading reconnects uniformly keeps many clients from hammering a recovering upstream in
 * lock-step (AWS Architecture Blog, "Exponential Backoff And Jitter", 2015).
 */
export function fullJitterDelay(
  attempt: number,
  baseMs: number,
  maxMs: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 30));
  return Math.floor(random() * ceiling);
}

/**
 * Milliseconds a `Retry-After` header asks to wait: delay-seconds or an HTTP-date
 * (RFC 9110 §10.2.3). Null when absent or unparseable.
 */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | null {
  if (header === null) return null;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now);
}
