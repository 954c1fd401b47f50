import { Redis } from 'ioredis';
import { requestKeyPrefix } from '../../src/limiter/open-redis-limiters.ts';

/**
 * The bench's own connection to the Redis its servers share limits through: it reads the peer's
 * window to time the burst, and afterwards deletes what the bench's servers wrote. The Redis is the
 * machine's, which other programs use too, so nothing else is touched: no FLUSHDB, no pattern that
 * could match another program's keys.
 */
export async function openBenchRedis(url: string): Promise<Redis> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2000 });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    throw new Error(
      `Redis at ${url} does not answer (${(error as Error).message}); start it, or leave out the parts that use it (--only)`,
    );
  }
  return redis;
}

/** nerkh's per-key limit of key `id`: its prefix and the id as a hash tag. */
export function nerkhLimitKey(id: string): string {
  return `${requestKeyPrefix}{${id}}`;
}

/**
 * Deletes nerkh's limit keys of the bench's own key ids (random, issued for this run) and every
 * key under `peerPrefix` (unique to this run); returns how many existed. nerkh's invalid-key
 * throttle (`nerkh:fk2:{address}`) is left alone: the bench sends nerkh no invalid key, so it wrote
 * none, and one that exists belongs to someone else.
 */
export async function deleteBenchKeys(
  redis: Redis,
  keyIds: readonly string[],
  peerPrefix: string,
): Promise<number> {
  let deleted = 0;
  for (let start = 0; start < keyIds.length; start += 1000) {
    deleted += await redis.unlink(...keyIds.slice(start, start + 1000).map(nerkhLimitKey));
  }
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${peerPrefix}*`, 'COUNT', 1000);
    if (keys.length > 0) deleted += await redis.unlink(...keys);
    cursor = next;
  } while (cursor !== '0');
  return deleted;
}
