import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { FailedKeyThrottle } from './failed-key-throttle.ts';
import { FallbackRateLimiter, FallbackSwitch, type SharedLimitState } from './fallback-limiter.ts';
import type { Limiters } from './limiters.ts';
import { MemoryRateLimiter } from './memory-limiter.ts';
import { redisConnection } from './redis/connection.ts';
import { RedisPauseBroadcast } from './redis/pause-broadcast.ts';
import { RedisRateLimiter } from './redis-limiter.ts';

/**
 * Where the request limit's keys start (`nerkh:rl2:{<key>}`) and the invalid-key throttle's
 * (`nerkh:fk2:{<address>}`). The `2` is the format: each key a string of admissions
 * (redis/sliding-log-script.ts), where versions before it kept a sorted set under `nerkh:rl:` and
 * `nerkh:fk:`. New names, so that during a rolling upgrade neither version meets the other's type
 * (WRONGTYPE would send every decision of a batch to memory).
 */
export const requestKeyPrefix = 'nerkh:rl2:';
export const failedKeyPrefix = 'nerkh:fk2:';

interface RedisLimiters extends Limiters {
  /** Whether both are shared through Redis right now, for /v1/health. */
  sharedState(): SharedLimitState;
}

/**
 * The two limiters of an API instance shared through Redis (`NERKH_REDIS_URL`): one connection
 * (and one more subscribed to the invalid-key throttle's pauses), each limiter with its own keys,
 * each falling back to memory while Redis is unreachable or stalled (a decision not answered
 * within NERKH_REDIS_TIMEOUT_MS is taken from memory; the limits go local once Redis has answered
 * nothing for a second after that, FallbackSwitch). Start-up waits for Redis at most the connect timeout
 * (2 s): if it does not answer, limits start local and become shared as soon as it does.
 */
export async function openRedisLimiters(config: Config, logger: Logger): Promise<RedisLimiters> {
  const url = config.NERKH_REDIS_URL;
  if (url === undefined) throw new Error('openRedisLimiters needs NERKH_REDIS_URL');
  const windowMs = config.NERKH_RATE_WINDOW_SECONDS * 1000;
  const redis = redisConnection(url, { commandTimeoutMs: config.NERKH_REDIS_TIMEOUT_MS });
  const fallbackSwitch = new FallbackSwitch({ redis, logger, windowMs });
  await fallbackSwitch.start();
  const limiter = (prefix: string) =>
    new FallbackRateLimiter(
      new RedisRateLimiter({ redis, windowMs, prefix }),
      new MemoryRateLimiter({ windowMs }),
      fallbackSwitch,
    );
  const requests = limiter(requestKeyPrefix);
  const failedKeys = new FailedKeyThrottle({
    failures: limiter(failedKeyPrefix),
    broadcast: new RedisPauseBroadcast({ redis, key: 'nerkh:fk-paused' }),
  });
  return {
    requests,
    failedKeys,
    sharedState: () => fallbackSwitch.state(),
    redisErrors: () => fallbackSwitch.errors,
    async close() {
      fallbackSwitch.close();
      await Promise.all([requests.close(), failedKeys.close()]);
      // QUIT waits for the answers of commands in flight; a Redis that is down gets no wait.
      if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
      else redis.disconnect();
    },
  };
}
