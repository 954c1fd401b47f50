import { createHash } from 'node:crypto';
import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { redisConnection } from '../../src/limiter/redis/connection.ts';
import { batchDecisions } from '../../src/limiter/redis/decision-batch.ts';
import {
  expiredBeforeTrim,
  headAdmissions,
  slidingLogScript,
} from '../../src/limiter/redis/sliding-log-script.ts';
import { RedisRateLimiter } from '../../src/limiter/redis-limiter.ts';
import { admissionsIn, deleteKeys, redisAvailable, testKeyPrefix, testRedisUrl } from '../support/redis.ts';
import { describeRateLimiterContract } from './rate-limiter-contract.ts';

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
    // A peek on Redis's clock sees the same window (its argument is not the take's short form).
    expect(await limiter.peek('k', 1, farFuture)).toMatchObject({ allowed: false, retryAfterSeconds: 60 });
    expect(await limiter.peek('k', 2, farFuture)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await limiter.take('k', 2, farFuture)).toMatchObject({ allowed: true, remaining: 0 });
    const [admittedMicroseconds] = await admissionsIn(redis, `${prefix}{k}`);
    expect(Math.abs((admittedMicroseconds as number) / 1_000_000 - Number(seconds))).toBeLessThan(5);
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
    expect(await admissionsIn(redis, `${prefix}{k}`)).toEqual([42_000, 42_000, 42_000, 42_000, 42_000]);
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

  it('sends the takes of a turn in script calls as they fill, the rest at the end of the turn, each exactly', async () => {
    const { connection, sent } = await countedConnection();
    const limiter = new RedisRateLimiter({ redis: connection, windowMs: 60_000, prefix });
    const asked = Array.from({ length: 150 }, () => limiter.take('k', 60, 0));
    // The full calls are on their way while the turn still asks: Redis decides the first requests
    // while the process reads the rest.
    expect(sent.length).toBeGreaterThan(0);
    expect(sent).toHaveLength(Math.floor(150 / batchDecisions));
    const decisions = await Promise.all(asked);
    expect(sent).toHaveLength(Math.ceil(150 / batchDecisions));
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
    expect(await admissionsIn(redis, `${prefix}{k}`)).toHaveLength(60);
  });

  it('splits a turn of many decisions into bounded batches, interleaved keys each exact', async () => {
    const { connection, sent } = await countedConnection();
    const limiter = new RedisRateLimiter({ redis: connection, windowMs: 60_000, prefix });
    const keys = ['a', 'b', 'c'];
    const decisions = await Promise.all(
      Array.from({ length: 450 }, (_, i) => limiter.take(keys[i % 3] as string, 60, 0)),
    );
    expect(sent).toHaveLength(Math.ceil(450 / batchDecisions));
    for (const [index, key] of keys.entries()) {
      const own = decisions.filter((_, i) => i % 3 === index);
      expect(own.filter((decision) => decision.allowed)).toHaveLength(60);
      expect(await admissionsIn(redis, `${prefix}{${key}}`)).toHaveLength(60);
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
    expect(await admissionsIn(redis, `${prefix}{k}`)).toHaveLength(2);
    expect(await redis.exists(`${prefix}{other}`)).toBe(0);
  });

  it('keeps the admissions of the last window, dropping older ones when it admits', async () => {
    const limiter = new RedisRateLimiter({ redis, windowMs: 8000, prefix, clock: 'caller' });
    for (let now = 0; now < 40_000; now += 250) {
      // Those in (now - 8 s, now]: 32 once the first window has passed, never the 160 admitted.
      const inWindow = Math.min(32, now / 250 + 1);
      expect(await limiter.take('k', 1000, now)).toMatchObject({ allowed: true, remaining: 1000 - inWindow });
      expect(await admissionsIn(redis, `${prefix}{k}`)).toEqual(
        Array.from({ length: inWindow }, (_, i) => (now - (inWindow - 1 - i) * 250) * 1000),
      );
    }
  });

  it(`appends to a key of more than ${headAdmissions} admissions, dropping expired ones ${expiredBeforeTrim} at a time`, async () => {
    const limiter = new RedisRateLimiter({ redis, windowMs: 8000, prefix, clock: 'caller' });
    let longest = 0;
    for (let now = 0; now < 40_000; now += 100) {
      // 80 in (now - 8 s, now] once the first window has passed; 400 admitted in all.
      const inWindow = Math.min(80, now / 100 + 1);
      // The next slot frees when the oldest admission in the window leaves it.
      const oldest = now - (inWindow - 1) * 100;
      expect(await limiter.take('k', 1000, now)).toMatchObject({
        allowed: true,
        remaining: 1000 - inWindow,
        resetSeconds: Math.max(1, Math.ceil((oldest + 8000 - now) / 1000)),
      });
      const stored = await admissionsIn(redis, `${prefix}{k}`);
      const expired = stored.length - inWindow;
      // Every admission in the window, in order, after fewer expired ones than a trim waits for.
      expect(stored.slice(expired)).toEqual(
        Array.from({ length: inWindow }, (_, i) => (now - (inWindow - 1 - i) * 100) * 1000),
      );
      expect(expired).toBeGreaterThanOrEqual(0);
      expect(expired).toBeLessThan(expiredBeforeTrim);
      longest = Math.max(longest, stored.length);
    }
    expect(longest).toBe(80 + expiredBeforeTrim - 1);
    // An admission that appends (none leaves the window at the same time) renews the key's expiry
    // too: a second of real time later, the key lives a whole window again (8 s; without the
    // renewal, 7 s at most).
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await limiter.take('k', 1000, 39_900);
    expect(await redis.pttl(`${prefix}{k}`)).toBeGreaterThan(7500);
  });

  it(`decides exactly on a long key that idled until more than its first ${headAdmissions} admissions left the window`, async () => {
    const limiter = new RedisRateLimiter({ redis, windowMs: 10_000, prefix, clock: 'caller' });
    // 100 admissions 50 ms apart: 0 … 4950 ms.
    for (let now = 0; now < 5000; now += 50) await limiter.take('k', 1000, now);
    // At 14,000 ms the window starts after 4000 ms: the 81 admissions up to 4000 ms have left it.
    expect(await limiter.take('k', 1000, 14_000)).toMatchObject({
      allowed: true,
      remaining: 1000 - 20,
      // The oldest in the window, 4050 ms, leaves it at 14,050 ms.
      resetSeconds: 1,
    });
    expect(await admissionsIn(redis, `${prefix}{k}`)).toEqual([
      ...Array.from({ length: 19 }, (_, i) => (4050 + i * 50) * 1000),
      14_000_000,
    ]);
  });

  it('a refusal or a peek writes nothing: what only a clock stepping back would count stays', async () => {
    const limiter = new RedisRateLimiter({ redis, windowMs: 60_000, prefix, clock: 'caller' });
    await limiter.take('k', 2, 0);
    await limiter.take('k', 2, 30_000);
    expect(await limiter.take('k', 1, 40_000)).toMatchObject({ allowed: false });
    // Past the first admission's window: it no longer counts, but a clock that steps back towards
    // the newest admission's would count it again, so it is kept.
    expect(await limiter.peek('k', 2, 70_000)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await limiter.take('k', 1, 70_000)).toMatchObject({ allowed: false });
    expect(await admissionsIn(redis, `${prefix}{k}`)).toEqual([0, 30_000_000]);
    expect(await limiter.take('k', 2, 40_000)).toMatchObject({ allowed: false, resetSeconds: 20 });
    // An admission a window after the first drops it.
    expect(await limiter.take('k', 2, 80_000)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await admissionsIn(redis, `${prefix}{k}`)).toEqual([30_000_000, 80_000_000]);
  });

  /**
   * Steps of one or two keys, each a gap of caller time, a take or a peek, and a limit: mostly
   * forward, now and then back, now and then most of a window, and now and then past a whole one.
   * Decided by the limiter and by a reference model of the rule, which must agree on every field
   * of every decision.
   */
  async function decidesByTheRule(options: {
    limits: { min: number; max: number };
    forwardMs: number;
    steps: { minLength: number; maxLength: number };
    numRuns: number;
  }): Promise<void> {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            gap: fc.oneof(
              { weight: 12, arbitrary: fc.integer({ min: 0, max: options.forwardMs }) },
              { weight: 4, arbitrary: fc.integer({ min: -12_000, max: 0 }) },
              { weight: 1, arbitrary: fc.integer({ min: 2000, max: 9000 }) },
              { weight: 2, arbitrary: fc.integer({ min: 10_000, max: 25_000 }) },
            ),
            key: fc.constantFrom('a', 'b'),
            limit: fc.integer(options.limits),
            peek: fc.boolean(),
          }),
          { ...options.steps, size: 'max' },
        ),
        async (steps) => {
          const windowMs = 10_000;
          const limiter = new RedisRateLimiter({
            redis,
            windowMs,
            prefix: `${prefix}stepping${run++}:`,
            clock: 'caller',
          });
          // Reference model: per key, every admission; a decision's time is the later of the clock
          // and the key's newest admission, and it counts the admissions after that time - window.
          const admitted = new Map<string, number[]>();
          let now = 100_000;
          for (const { gap, key, limit, peek } of steps) {
            now += gap;
            const decision = peek ? await limiter.peek(key, limit, now) : await limiter.take(key, limit, now);
            const times = admitted.get(key) ?? [];
            admitted.set(key, times);
            const decisionNow = Math.max(now, times.at(-1) ?? now);
            const allowed = times.filter((t) => t > decisionNow - windowMs).length < limit;
            if (allowed && !peek) times.push(decisionNow);
            const after = times.filter((t) => t > decisionNow - windowMs);
            const freeing = after[Math.max(0, after.length - limit)];
            const resetSeconds =
              freeing === undefined ? 0 : Math.max(1, Math.ceil((freeing + windowMs - decisionNow) / 1000));
            expect(decision).toEqual({
              allowed,
              limit,
              remaining: Math.max(0, limit - after.length - (allowed && peek ? 1 : 0)),
              resetSeconds,
              retryAfterSeconds: allowed ? 0 : resetSeconds,
            });
          }
        },
      ),
      { numRuns: options.numRuns },
    );
  }

  it('property: decides by the rule on keys whose clock steps back, with peeks and changed limits', async () => {
    await decidesByTheRule({
      limits: { min: 1, max: 6 },
      forwardMs: 2500,
      steps: { minLength: 1, maxLength: 150 },
      numRuns: 150,
    });
  });

  it(`property: decides by the same rule on keys longer than ${headAdmissions} admissions`, async () => {
    // Limits around the head's length and a window holding up to ~125 admissions of one key, so
    // keys cross from short to long and back, trim, idle past their head, and meet lowered limits.
    await decidesByTheRule({
      limits: { min: headAdmissions - 8, max: 3 * headAdmissions },
      forwardMs: 40,
      steps: { minLength: 300, maxLength: 600 },
      numRuns: 40,
    });
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
    expect(await admissionsIn(redis, `${prefix}{shared}`)).toHaveLength(60);
  });
});
