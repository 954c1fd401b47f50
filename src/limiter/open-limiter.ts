import { type Config, ConfigError } from '../config.ts';
import { MemoryRateLimiter } from './memory-limiter.ts';
import type { RateLimiter } from './types.ts';

/** The two limits an API process enforces, on the one backend the configuration selects. */
export interface Limiters {
  /** Admitted requests per API key per rolling window (NERKH_RATE_LIMIT, or the key's own limit). */
  requests: RateLimiter;
  /** Invalid keys per client address per window; past the limit, key checks pause for that address. */
  failedKeys: RateLimiter;
  close(): Promise<void>;
}

/**
 * Opens the limiters the configuration selects, the one place a backend is chosen: in this
 * process's memory. NERKH_REDIS_URL names a Redis server, which this build cannot use yet:
 * start-up stops with a reason instead of ignoring the setting.
 */
export async function openLimiter(config: Config): Promise<Limiters> {
  if (config.NERKH_REDIS_URL !== undefined) {
    throw new ConfigError(
      'NERKH_REDIS_URL is set, but this build of nerkh has no Redis limiter yet; unset it to count requests in this process',
    );
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
  const failedKeys = new MemoryRateLimiter({ windowMs });
  return {
    requests,
    failedKeys,
    close: async () => {
      await Promise.all([requests.close(), failedKeys.close()]);
    },
  };
}
