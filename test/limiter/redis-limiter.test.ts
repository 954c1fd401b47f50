import { createHash } from 'node:crypto';
import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { MemoryRateLimiter } from '../../src/limiter/memory-limiter.ts';
import { redisConnection } from '../../src/limiter/redis/connection.ts';
import { slidingLogScript } from '../../src/limiter/redis/sliding-log-script.ts';
import { RedisRateLimiter } from '../../src/limiter/redis-limiter.ts';
import type { RateLimiter } from '../../src/limiter/types.ts';
import { deleteKeys, redisAvailable, testKeyPrefix, testRedisUrl } from '../support/redis.ts';

/** A fresh limiter (no admissions yet) with the given window. */
type OpenLimiter = (windowMs: number) => RateLimiter;

/**
 * What every RateLimiter does, through take and peek only: the assertions of the in-memory
 * limiter's behavioural tests, run against any implementation.
 */
function rateLimiterContract(open: OpenLimiter): void {
  it('admits 60 in a minute, refuses the 61st with the wait until the first slot frees', async () => {
    const limiter = open(60_000);
    const start = 1_000_000;
    for (let i = 0; i < 60; i++) {
      const decision = await limiter.take('k', 60, start + i * 500);
      expect(decision).toMatchObject({ allowed: true, remaining: 59 - i });
    }
    const refused = await limiter.take('k', 60, start + 30_000);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 30, resetSeconds: 30 });
    // One millisecond before the first admission is a minute old: still refused.
    expect((await limiter.take('k', 60, start + 59_999)).allowed).toBe(false);
    const again = await limiter.take('k', 60, start + 60_000);
    expect(again).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('a refusal waits for the one admission in the window to leave it, not a whole window', async () => {
    const limiter = open(60_000);
    await limiter.take('k', 1, 0);
    expect(await limiter.take('k', 1, 45_000)).toMatchObject({
      allowed: false,
      remaining: 0,
      resetSeconds: 15,
      retryAfterSeconds: 15,
    });
    expect(await limiter.peek('k', 1, 45_000)).toMatchObject({ allowed: false, retryAfterSeconds: 15 });
  });

  it('keeps keys apart', async () => {
    const limiter = open(60_000);
    for (let i = 0; i < 3; i++) await limiter.take('a', 3, 0);
    expect((await limiter.take('a', 3, 1)).allowed).toBe(false);
    expect((await limiter.take('b', 3, 1)).allowed).toBe(true);
  });

  it('peek reports without counting', async () => {
    const limiter = open(1000);
    expect(await limiter.peek('k', 1, 0)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await limiter.peek('k', 1, 0)).toMatchObject({ allowed: true });
    await limiter.take('k', 1, 0);
    expect(await limiter.peek('k', 1, 10)).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
  });

  it('follows a changed per-key limit', async () => {
    const limiter = open(60_000);
    for (let i = 0; i < 5; i++) await limiter.take('k', 5, i);
    expect((await limiter.take('k', 3, 10)).allowed).toBe(false);
    expect((await limiter.take('k', 8, 10)).allowed).toBe(true);
  });

  it('never runs time backwards for a key', async () => {
    const limiter = open(60_000);
    await limiter.take('k', 1, 100_000);
    expect((await limiter.take('k', 1, 0)).allowed).toBe(false);
  });

  it('property: no interval of one window admits more than the limit, and refusals consume nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 20 }).map((s) => s * 1000),
        fc.array(fc.integer({ min: 0, max: 4000 }), { minLength: 1, maxLength: 300 }),
        async (limit, windowMs, gaps) => {
          const limiter = open(windowMs);
          const admitted: number[] = [];
          let now = 0;
          for (const gap of gaps) {
            now += gap;
            const decision = await limiter.take('k', limit, now);
            // Reference model: admit iff fewer than `limit` ADMITTED requests in (now - window, now].
            // Equality with it means refusals never count and nothing is refused needlessly.
            const inWindow = admitted.filter((t) => t > now - windowMs).length;
            expect(decision.allowed).toBe(inWindow < limit);
            if (decision.allowed) admitted.push(now);
            const after = admitted.filter((t) => t > now - windowMs);
            expect(decision.remaining).toBe(limit - after.length);
            // The wait is exact: until the oldest admission in the window leaves it.
            const freeing = after[Math.max(0, after.length - limit)];
            const secondsUntilFree =
              freeing === undefined ? 0 : Math.max(1, Math.ceil((freeing + windowMs - now) / 1000));
            expect(decision.resetSeconds).toBe(secondsUntilFree);
            expect(decision.retryAfterSeconds).toBe(decision.allowed ? 0 : secondsUntilFree);
            if (!decision.allowed) {
              expect(decision.retryAfterSeconds).toBeGreaterThanOrEqual(1);
              // Waiting the advertised time is enough.
              const oldest = admitted.filter((t) => t > now - windowMs)[0] as number;
              expect(oldest + windowMs).toBeLessThanOrEqual(now + decision.retryAfterSeconds * 1000);
            }
          }
          // The promise itself: every window [t, t + windowMs) starting at an admission holds ≤ limit.
          for (const t of admitted) {
            expect(admitted.filter((u) => u >= t && u < t + windowMs).length).toBeLessThanOrEqual(limit);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('property: exact with large limits and changing overrides', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            gap: fc.integer({ min: 0, max: 1500 }),
            // Mostly one override, now and then an edit (lower or higher) as an operator makes.
            limit: fc.oneof(
              { weight: 9, arbitrary: fc.constant(150) },
              { weight: 1, arbitrary: fc.integer({ min: 1, max: 400 }) },
            ),
          }),
          { minLength: 1, maxLength: 1500 },
        ),
        async (steps) => {
          const windowMs = 10_000;
          const limiter = open(windowMs);
          const admitted: number[] = [];
          let now = 0;
          for (const { gap, limit } of steps) {
            now += gap;
            const decision = await limiter.take('k', limit, now);
            const inWindow = admitted.filter((t) => t > now - windowMs);
            expect(decision.allowed).toBe(inWindow.length < limit);
            if (decision.allowed) admitted.push(now);
            const after = admitted.filter((t) => t > now - windowMs);
            expect(decision.remaining).toBe(Math.max(0, limit - after.length));
            // The next slot frees when the count drops below the limit (the oldest leaving, unless
            // a lowered limit left more admissions in the window than it allows).
            const freeing = after[Math.max(0, after.length - limit)];
            expect(decision.resetSeconds).toBe(
              freeing === undefined ? 0 : Math.max(1, Math.ceil((freeing + windowMs - now) / 1000)),
            );
          }
        },
      ),
      { numRuns: 100 },
    );
  });
}

describe('rate limiter contract: MemoryRateLimiter', () => {
  rateLimiterContract((windowMs) => new MemoryRateLimiter({ windowMs }));
});

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

  describe('contract, on the caller clock', () => {
    rateLimiterContract(
      (windowMs) =>
        // Each limiter its own keys: a property's runs must not see each other's admissions.
        new RedisRateLimiter({ redis, windowMs, prefix: `${prefix}${opened++}:`, clock: 'caller' }),
    );
  });

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
