import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { unitRun } from './unit-run.ts';

/** The machine's Redis, as `.ci/run` starts it. */
export const testRedisUrl = 'redis://127.0.0.1:6379';

const required = process.env.NERKH_REQUIRE_REDIS === '1';

/**
 * Whether the tests against real Redis run: true when Redis answers a PING. When it does not,
 * they are skipped with the reason printed, or, under `NERKH_REQUIRE_REDIS=1` (CI), fail.
 */
export async function redisAvailable(suite: string): Promise<boolean> {
  if (unitRun) {
    process.stdout.write(`${suite} skipped: npm run test:unit runs no Redis tests (npm test does)\n`);
    return false;
  }
  const probe = new Redis(testRedisUrl, {
    lazyConnect: true,
    connectTimeout: 1000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  // The connection error says why (ECONNREFUSED, a timeout); the rejected connect only that it closed.
  let cause: Error | null = null;
  probe.on('error', (error: Error) => {
    cause ??= error;
  });
  try {
    await probe.connect();
    await probe.ping();
    return true;
  } catch (error) {
    const reason = `no Redis answers at ${testRedisUrl} (${(cause ?? (error as Error)).message})`;
    if (required) throw new Error(`NERKH_REQUIRE_REDIS=1 but ${reason}`);
    process.stdout.write(`${suite} skipped: ${reason}; start one with redis-server, see .ci/run\n`);
    return false;
  } finally {
    probe.disconnect();
  }
}

/** A prefix no other run (or other process on the machine) writes under. */
export function testKeyPrefix(): string {
  return `nerkh-test:${process.pid}:${randomBytes(4).toString('hex')}:`;
}

/** Deletes every key under `prefix` (SCAN, so the server is never blocked by KEYS). */
export async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    if (keys.length > 0) await redis.unlink(...keys);
    cursor = next;
  } while (cursor !== '0');
}

/**
 * The admission times, in microseconds, oldest first, that a Redis limiter key holds (8-byte
 * big-endian doubles, src/limiter/redis/sliding-log-script.ts); none for a key that does not exist.
 */
export async function admissionsIn(redis: Redis, key: string): Promise<number[]> {
  const value = await redis.getBuffer(key);
  if (value === null) return [];
  return Array.from({ length: value.length / 8 }, (_, i) => value.readDoubleBE(i * 8));
}
