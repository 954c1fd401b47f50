import { createHash } from 'node:crypto';
import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { MemoryRateLimiter } from '../../src/limiter/memory-limiter.ts';
import { redisConnection } from '../../src/limiter/redis/connection.ts';
import { maxBatchDecisions } from '../../src/limiter/redis/decision-batch.ts';
import { slidingLogScript } from '../../src/limiter/redis/sliding-log-script.ts';
import { RedisRateLimiter } from '../../src/limiter/redis-limiter.ts';
import { deleteKeys, redisAvailable, testKeyPrefix, testRedisUrl } from '../support/redis.ts';
import { describeRateLimiterContract } from './rate-limiter-contract.ts';
import { previousSlidingLogScript } from './redis/previous-sliding-log-script.ts';

const available = await redisAvailable('Redis limiter tests');

describe.skipIf(!available)('RedisRateLimiter against real Redis', () => {
  let redis: Redis;
  /** The keys of one test; each test gets its own, deleted after it. */
  let prefix = testKeyPrefix();
  let opened = 0;

  beforeAll(async () => {
    redis = redisConnection(testRedisUrl, { commandTimeoutMs: 5000 });
    await redis.connect();
  });
  afterEach(async () => {
    await deleteKeys(redis, prefix);
    prefix = testKeyPrefix();
  });
  afterAll(async () => {
    await redis?.quit();
  });

  describeRateLimiterContract(
    'RedisRateLimiter on the caller clock',
    async ({ windowMs }) =>
      // Each limiter its own keys: a property's runs must not see each other's admissions.
      new RedisRateLimiter({ redis, windowMs, prefix: `${prefix}${opened++}:`, clock: 'caller' }),
  );

  it('by default places requests on Redis time, whatever time the caller passes', async () => {
    const limiter = new RedisRateLimiter({ redis, windowMs: 60_000, prefix });
    const [seconds] = await redis.time();
    const farFuture = (Number(seconds) + 10 * 365 * 86_400) * 1000;
    expect(await limiter.take('k', 1, farFuture)).toMatchObject({ allowed: true, resetSeconds: 60 });
    // Two windows later on the caller's clock the slot would be free; on Redis's it is not.
    expect(await limiter.take('k', 1, farFuture + 120_000)).toMatchObject({
      allowed: false,
      retryAfterSeconds: 60,
    });
    const [, score] = await redis.zrange(`${prefix}{k}`, 0, 0, 'WITHSCORES');
    expect(Math.abs(Number(score) / 1_000_000 - Number(seconds))).toBeLessThan(5);
  });

  it('keeps working when Redis forgets the script (SCRIPT FLUSH between two decisions)', async () => {
    const limiter = new RedisRateLimiter({ redis, windowMs: 60_000, prefix });
    expect(await limiter.take('k', 3, 0)).toMatchObject({ allowed: true, remaining: 2 });
    await redis.script('FLUSH');
    expect(await limiter.take('k', 3, 0)).toMatchObject({ allowed: true, remaining: 1 });
    // Loaded again by the decision that met NOSCRIPT.
    const sha = createHash('sha1').update(slidingLogScript).digest('hex');
    expect(await redis.script('EXISTS', sha)).toEqual([1]);
  });

  it('stores a key as prefix{key} (a Cluster hash tag), expiring a window after its newest admission', async () => {
    const limiter = new RedisRateLimiter({ redis, windowMs: 30_000, prefix });
    await limiter.take('key:1', 5, 0);
    const [, keys] = await redis.scan('0', 'MATCH', `${prefix}*`, 'COUNT', 1000);
    expect(keys).toEqual([`${prefix}{key:1}`]);
    const ttl = await redis.pttl(`${prefix}{key:1}`);
    expect(ttl).toBeGreaterThan(25_000);
    expect(ttl).toBeLessThanOrEqual(30_000);
    // A peek writes nothing: an idle key costs no memory.
    await limiter.peek('never-taken', 5, 0);
    expect(await redis.exists(`${prefix}{never-taken}`)).toBe(0);
  });

  it('counts admissions made in the same microsecond separately', async () => {
    const limiter = new RedisRateLimiter({ redis, windowMs: 60_000, prefix, clock: 'caller' });
    for (let i = 0; i < 5; i++) await limiter.take('k', 10, 42);
    expect(await redis.zcard(`${prefix}{k}`)).toBe(5);
    expect(await limiter.peek('k', 10, 42)).toMatchObject({ allowed: true, remaining: 4 });
  });

  /** A connection of its own, and the names of the commands sent on it. */
  async function countedConnection() {
    const connection = redisConnection(testRedisUrl, { commandTimeoutMs: 5000 });
    onTestFinished(async () => {
      await connection.quit();
    });
    await connection.connect();
    const sent: string[] = [];
    const send = connection.sendCommand.bind(connection);
    connection.sendCommand = (command, stream) => {
      sent.push(command.name);
      return send(command, stream);
    };
    return { connection, sent };
  }

  it('decides the takes of one event-loop turn in one script call, each exactly', async () => {
    const { connection, sent } = await countedConnection();
    const limiter = new RedisRateLimiter({ redis: connection, windowMs: 60_000, prefix });
    const decisions = await Promise.all(Array.from({ length: 150 }, () => limiter.take('k', 60, 0)));
    expect(sent).toHaveLength(1);
    const admitted = decisions.filter((decision) => decision.allowed);
    expect(admitted.map((decision) => decision.remaining)).toEqual(
      Array.from({ length: 60 }, (_, i) => 59 - i),
    );
    // The first 60 in the order asked, then refusals that wait for the first admission to leave.
    expect(decisions.slice(0, 60).every((decision) => decision.allowed)).toBe(true);
    for (const refused of decisions.slice(60)) {
      expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 60 });
    }
    // Admitted in one microsecond, each kept apart.
    expect(await redis.zcard(`${prefix}{k}`)).toBe(60);
  });

  it('splits a turn of many decisions into bounded batches, interleaved keys each exact', async () => {
    const { connection, sent } = await countedConnection();
    const limiter = new RedisRateLimiter({ redis: connection, windowMs: 60_000, prefix });
    const keys = ['a', 'b', 'c'];
    const decisions = await Promise.all(
      Array.from({ length: 450 }, (_, i) => limiter.take(keys[i % 3] as string, 60, 0)),
    );
    expect(sent).toHaveLength(Math.ceil(450 / maxBatchDecisions));
    for (const [index, key] of keys.entries()) {
      const own = decisions.filter((_, i) => i % 3 === index);
      expect(own.filter((decision) => decision.allowed)).toHaveLength(60);
      expect(await redis.zcard(`${prefix}{${key}}`)).toBe(60);
    }
  });

  it('in one batch, a peek sees the takes asked before it and counts nothing', async () => {
    const limiter = new RedisRateLimiter({ redis, windowMs: 60_000, prefix, clock: 'caller' });
    const decisions = await Promise.all([
      limiter.peek('k', 2, 5000),
      limiter.take('k', 2, 5000),
      limiter.peek('k', 2, 5000),
      limiter.take('k', 2, 5000),
      limiter.peek('k', 2, 5000),
      limiter.take('k', 2, 5000),
      limiter.peek('other', 2, 5000),
    ]);
    expect(
      decisions.map(({ allowed, remaining, resetSeconds }) => [allowed, remaining, resetSeconds]),
    ).toEqual([
      [true, 1, 0],
      [true, 1, 60],
      [true, 0, 60],
      [true, 0, 60],
      [false, 0, 60],
      [false, 0, 60],
      [true, 1, 0],
    ]);
    expect(await redis.zcard(`${prefix}{k}`)).toBe(2);
    expect(await redis.exists(`${prefix}{other}`)).toBe(0);
  });

  it('trims the admissions that left the window, keeping at most those of 1.125 windows', async () => {
    const limiter = new RedisRateLimiter({ redis, windowMs: 8000, prefix, clock: 'caller' });
    let largest = 0;
    for (let now = 0; now < 40_000; now += 250) {
      expect(await limiter.take('k', 1000, now)).toMatchObject({
        allowed: true,
        remaining: 1000 - Math.min(32, now / 250 + 1),
      });
      largest = Math.max(largest, await redis.zcard(`${prefix}{k}`));
    }
    // 32 admissions per window, 36 in 1.125 windows; without trimming the set would hold all 160.
    expect(largest).toBeGreaterThan(32);
    expect(largest).toBeLessThanOrEqual(36);
  });

  it('property: decides like the in-memory limiter when instances of the previous version share its keys', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.record({ gap: fc.integer({ min: 0, max: 2500 }), previous: fc.boolean() }), {
          minLength: 1,
          maxLength: 120,
        }),
        async (limit, steps) => {
          const windowMs = 10_000;
          const keyPrefix = `${prefix}compat${run++}:`;
          const current = new RedisRateLimiter({ redis, windowMs, prefix: keyPrefix, clock: 'caller' });
          const memory = new MemoryRateLimiter({ windowMs });
          let now = 0;
          for (const { gap, previous } of steps) {
            now += gap;
            const expected = memory.take('k', limit, now);
            if (previous) {
              const [allowed, remaining, resetSeconds] = (await redis.eval(
                previousSlidingLogScript,
                1,
                `${keyPrefix}{k}`,
                limit,
                windowMs,
                '1',
                now,
              )) as number[];
              expect({ allowed: allowed === 1, remaining, resetSeconds }).toEqual({
                allowed: expected.allowed,
                remaining: expected.remaining,
                resetSeconds: expected.resetSeconds,
              });
            } else {
              expect(await current.take('k', limit, now)).toEqual(expected);
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('three instances on their own connections together admit exactly the limit', async () => {
    const connections = [0, 1, 2].map(() => redisConnection(testRedisUrl, { commandTimeoutMs: 5000 }));
    onTestFinished(async () => {
      await Promise.all(connections.map((connection) => connection.quit()));
    });
    await Promise.all(connections.map((connection) => connection.connect()));
    const instances = connections.map(
      (connection) => new RedisRateLimiter({ redis: connection, windowMs: 60_000, prefix }),
    );
    const decisions = await Promise.all(
      Array.from({ length: 150 }, (_, i) => (instances[i % 3] as RedisRateLimiter).take('shared', 60, 0)),
    );
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(60);
    expect(await redis.zcard(`${prefix}{shared}`)).toBe(60);
  });
});
