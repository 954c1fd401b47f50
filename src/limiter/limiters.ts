import type { FailedKeyThrottle } from './failed-key-throttle.ts';
import type { SharedLimitState } from './fallback-limiter.ts';
import type { RateLimiter } from './types.ts';

/** The two limits an API process enforces, on the one backend the configuration selects. */
export interface Limiters {
  /** Admitted requests per API key per rolling window (NERKH_RATE_LIMIT, or the key's own limit). */
  requests: RateLimiter;
  /** Invalid keys per client address per window; past the limit, key checks pause for that address. */
  failedKeys: FailedKeyThrottle;
  /**
   * Whether the limits are shared across instances right now, for `/v1/health`; absent where they
   * never are (in memory, each process counts alone by design).
   */
  sharedState?(): SharedLimitState;
  /** Failed or timed-out limit decisions, failed PINGs, connection errors and drops so far; absent where no Redis is used. */
  redisErrors?(): number;
  close(): Promise<void>;
}
