import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { FailedKeyThrottle } from './failed-key-throttle.ts';
import type { SharedLimitState } from './fallback-limiter.ts';
import { MemoryRateLimiter } from './memory-limiter.ts';
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

/**
 * Opens the limiters the configuration selects, the one place a backend is chosen: shared through
 * Redis when NERKH_REDIS_URL is set (exact across every instance, falling back to this process's
 * memory while Redis is unreachable), else in this process's memory. The Redis client is loaded
 * only then, so the embedded default never pays its load time.
 */
export async function openLimiter(config: Config, logger: Logger): Promise<Limiters> {
  if (config.NERKH_REDIS_URL !== undefined) {
    const { openRedisLimiters } = await import('./open-redis-limiters.ts');
    return openRedisLimiters(config, logger);
  }
  return memoryLimiters(config);
}

/**
 * Both limits in this process's memory: exact for one API process; each of several processes
 * would count alone.
 */
export function memoryLimiters(config: Pick<Config, 'NERKH_RATE_WINDOW_SECONDS'>): Limiters {
  const windowMs = config.NERKH_RATE_WINDOW_SECONDS * 1000;
  const requests = new MemoryRateLimiter({ windowMs });
  const failedKeys = new FailedKeyThrottle({ failures: new MemoryRateLimiter({ windowMs }) });
  return {
    requests,
    failedKeys,
    close: async () => {
      await Promise.all([requests.close(), failedKeys.close()]);
    },
  };
}
