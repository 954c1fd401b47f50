import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { FailedKeyThrottle } from './failed-key-throttle.ts';
import type { Limiters } from './limiters.ts';
import { MemoryRateLimiter } from './memory-limiter.ts';

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
