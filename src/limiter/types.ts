/**
 * Rolling-window request limiting (docs/architecture.md#rate-limit): at most `limit` admitted requests in ANY window of
 * `windowMs`, per key. One interface, an in-memory implementation for one process and a shared one
 * (Redis) when several API instances must share the quota.
 */
export interface RateLimitDecision {
  allowed: boolean;
  /** The limit the decision was taken against. */
  limit: number;
  /** Requests still admissible in the current window after this decision. */
  remaining: number;
  /**
   * Seconds until the next slot frees (the oldest admitted request in the window leaves it), or 0
   * when nothing was admitted in the window; what the `RateLimit` header's `t` parameter carries.
   */
  resetSeconds: number;
  /** Whole seconds to wait before a retry can be admitted (≥ 1 when refused, 0 when allowed). */
  retryAfterSeconds: number;
}

/**
 * A limiter that decides in-process answers directly; one that asks a shared store (Redis) answers
 * with a promise. Callers handle both, so the in-process hot path allocates no promise per request.
 */
export type MaybePromise<T> = T | Promise<T>;

export interface RateLimiter {
  /** Admits (and counts) one request for `key` if the window has room; a refusal counts nothing. */
  take(key: string, limit: number, nowMs: number): MaybePromise<RateLimitDecision>;
  /** The decision `take` would make, without counting anything. */
  peek(key: string, limit: number, nowMs: number): MaybePromise<RateLimitDecision>;
  close(): Promise<void>;
}
