import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { FallbackRateLimiter, FallbackSwitch } from '../../src/limiter/fallback-limiter.ts';
import { MemoryRateLimiter } from '../../src/limiter/memory-limiter.ts';
import { redisConnection } from '../../src/limiter/redis/connection.ts';
import { RedisRateLimiter } from '../../src/limiter/redis-limiter.ts';
import { createLogger } from '../../src/logger.ts';
import { admissionsIn, deleteKeys, redisAvailable, testKeyPrefix, testRedisUrl } from '../support/redis.ts';
import { TcpProxy } from '../support/tcp-proxy.ts';
import { describeRateLimiterContract } from './rate-limiter-contract.ts';

const windowMs = 60_000;

/** pino lines as objects, to count what was logged. */
function capturedLogger() {
  const lines: Array<{ level: number; msg: string; reason?: string }> = [];
  const logger = createLogger('info', { write: (line: string) => lines.push(JSON.parse(line)) });
  const warnings = () => lines.filter((line) => line.level === 40);
  const infos = () => lines.filter((line) => line.level === 30);
  return { logger, warnings, infos };
}

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const available = await redisAvailable('Redis fallback tests');

describe('FallbackRateLimiter while Redis does not answer', () => {
  let proxy: TcpProxy;
  let redis: Redis;
  let fallbackSwitch: FallbackSwitch;

  beforeAll(async () => {
    // A proxy that drops every connection at once: a Redis that is down, without a server behind it.
    proxy = await TcpProxy.start(6379);
    proxy.cut();
    redis = redisConnection(`redis://127.0.0.1:${proxy.port}`);
    fallbackSwitch = new FallbackSwitch({ redis, logger: capturedLogger().logger, windowMs });
    await fallbackSwitch.start();
  });
  afterAll(async () => {
    fallbackSwitch?.close();
    redis?.disconnect();
    await proxy?.close();
  });

  it('decides from memory', () => {
    expect(fallbackSwitch.state()).toMatchObject({ shared: false });
  });

  describeRateLimiterContract(
    'FallbackRateLimiter on memory',
    async ({ windowMs }) =>
      new FallbackRateLimiter(
        new RedisRateLimiter({ redis, windowMs, prefix: 'nerkh-test:unreachable:', clock: 'caller' }),
        new MemoryRateLimiter({ windowMs }),
        fallbackSwitch,
      ),
  );
});

describe.skipIf(!available)('FallbackRateLimiter while Redis answers', () => {
  let redis: Redis;
  let fallbackSwitch: FallbackSwitch;
  let prefix = testKeyPrefix();
  let opened = 0;

  beforeAll(async () => {
    redis = redisConnection(testRedisUrl, { commandTimeoutMs: 5000 });
    fallbackSwitch = new FallbackSwitch({ redis, logger: capturedLogger().logger, windowMs });
    await fallbackSwitch.start();
  });
  afterEach(async () => {
    const state = fallbackSwitch.state();
    await deleteKeys(redis, prefix);
    prefix = testKeyPrefix();
    // Every decision of the test came from Redis, none from memory alone.
    expect(state).toMatchObject({ shared: true });
  });
  afterAll(async () => {
    fallbackSwitch?.close();
    await redis?.quit();
  });

  describeRateLimiterContract(
    'FallbackRateLimiter on Redis',
    async ({ windowMs }) =>
      new FallbackRateLimiter(
        new RedisRateLimiter({ redis, windowMs, prefix: `${prefix}${opened++}:`, clock: 'caller' }),
        new MemoryRateLimiter({ windowMs }),
        fallbackSwitch,
      ),
  );
});

describe.skipIf(!available)('FallbackRateLimiter against real Redis behind a proxy', () => {
  let admin: Redis;

  beforeAll(async () => {
    admin = redisConnection(testRedisUrl, { commandTimeoutMs: 5000 });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.quit();
  });

  /** A limiter whose Redis is reached through a proxy the test can stall or cut; torn down after the test. */
  async function limiterBehindProxy() {
    const proxy = await TcpProxy.start(6379);
    const prefix = testKeyPrefix();
    const redis = redisConnection(`redis://127.0.0.1:${proxy.port}`);
    const { logger, warnings, infos } = capturedLogger();
    const fallbackSwitch = new FallbackSwitch({ redis, logger, windowMs, probeMs: 100 });
    onTestFinished(async () => {
      fallbackSwitch.close();
      redis.disconnect();
      await proxy.close();
      await deleteKeys(admin, prefix);
    });
    await fallbackSwitch.start();
    const limiter = new FallbackRateLimiter(
      new RedisRateLimiter({ redis, windowMs, prefix }),
      new MemoryRateLimiter({ windowMs }),
      fallbackSwitch,
    );
    const admitted = async (key: string) => (await admissionsIn(admin, `${prefix}{${key}}`)).length;
    return { proxy, limiter, fallbackSwitch, warnings, infos, admitted, prefix };
  }

  it('a Redis that stops answering costs a request at most a command timeout; memory decides until it answers again', async () => {
    const { proxy, limiter, fallbackSwitch, warnings, infos, admitted } = await limiterBehindProxy();
    expect(await limiter.take('k', 5, Date.now())).toMatchObject({ allowed: true, remaining: 4 });
    expect(fallbackSwitch.state()).toMatchObject({ shared: true, reason: null });

    proxy.stall();
    const startedMs = performance.now();
    // Memory already knows the admission Redis granted through this instance.
    expect(await limiter.take('k', 5, Date.now())).toMatchObject({ allowed: true, remaining: 3 });
    expect(performance.now() - startedMs).toBeLessThan(1000);
    // One timeout may be one slow answer: the limits go local once Redis answers nothing for a second.
    expect(fallbackSwitch.state()).toMatchObject({ shared: true });
    await until(() => !fallbackSwitch.state().shared, 3000);
    expect(performance.now() - startedMs).toBeGreaterThanOrEqual(1000);
    expect(fallbackSwitch.state()).toMatchObject({
      shared: false,
      reason: expect.stringContaining('Command timed out'),
    });
    // Later requests wait on nothing: their decision is at hand.
    for (let i = 0; i < 10; i++) expect(limiter.take('k', 5, Date.now())).not.toBeInstanceOf(Promise);
    expect(warnings()).toHaveLength(1);

    proxy.restore();
    await until(() => fallbackSwitch.state().shared, 5000);
    await limiter.take('other', 5, Date.now());
    expect(await admitted('other')).toBe(1);
    expect(warnings()).toHaveLength(1);
    expect(infos()).toHaveLength(1);
  });

  it('a lone slow answer costs the decisions that waited for it, not the shared limits', async () => {
    const { proxy, limiter, fallbackSwitch, warnings, admitted } = await limiterBehindProxy();
    await limiter.take('k', 5, Date.now());
    proxy.stall();
    // Redis holds the answer past the command timeout: decided from memory, no error.
    expect(await limiter.take('k', 5, Date.now())).toMatchObject({ allowed: true, remaining: 3 });
    proxy.restore();
    // Well past the second of silence that would switch: Redis answered the PING sent meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(fallbackSwitch.state()).toMatchObject({ shared: true, reason: null });
    expect(warnings()).toHaveLength(0);
    // Redis ran the late command too: both admissions are shared.
    expect(await admitted('k')).toBe(2);
    expect(await limiter.take('k', 5, Date.now())).toMatchObject({ allowed: true, remaining: 2 });
  });

  it('a closed connection switches at once, before any command could time out', async () => {
    const { proxy, fallbackSwitch, warnings } = await limiterBehindProxy();
    const startedMs = performance.now();
    proxy.cut();
    await until(() => !fallbackSwitch.state().shared, 2000);
    // Timeouts would take the command timeout (250 ms) and the second after it.
    expect(performance.now() - startedMs).toBeLessThan(1000);
    expect(warnings()).toHaveLength(1);
  });

  it('a batch Redis does not answer is decided from memory, every decision in it, each exactly', async () => {
    const { proxy, limiter } = await limiterBehindProxy();
    proxy.stall();
    const decisions = await Promise.all(Array.from({ length: 150 }, () => limiter.take('k', 60, Date.now())));
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(60);
  });

  it('a batch Redis refuses with an error is decided from memory, and the limits go local at once', async () => {
    const { limiter, fallbackSwitch, warnings, prefix } = await limiterBehindProxy();
    // A key of the wrong type fails the whole script, and so every decision of its batch.
    await admin.sadd(`${prefix}{wrong}`, 'not a string of admissions');
    const decisions = await Promise.all([
      limiter.take('wrong', 2, Date.now()),
      ...Array.from({ length: 5 }, () => limiter.take('k', 3, Date.now())),
    ]);
    expect(decisions.map((decision) => decision.allowed)).toEqual([true, true, true, true, false, false]);
    expect(fallbackSwitch.state()).toMatchObject({
      shared: false,
      reason: expect.stringContaining('WRONGTYPE'),
    });
    expect(warnings()).toHaveLength(1);
  });

  it('a dropped connection fails no request, and limits are shared again once Redis is back', async () => {
    const { proxy, limiter, fallbackSwitch, warnings, admitted } = await limiterBehindProxy();
    await limiter.take('k', 100, Date.now());
    const inFlight = Array.from({ length: 50 }, () => limiter.take('k', 100, Date.now()));
    proxy.cut();
    const decisions = await Promise.all(inFlight);
    expect(decisions.every((decision) => decision.allowed)).toBe(true);
    await until(() => !fallbackSwitch.state().shared, 2000);
    expect(await limiter.take('k', 100, Date.now())).toMatchObject({ allowed: true });
    expect(warnings()).toHaveLength(1);

    proxy.restore();
    await until(() => fallbackSwitch.state().shared, 5000);
    expect(fallbackSwitch.state().reason).toBeNull();
    const before = await admitted('k');
    await limiter.take('k', 100, Date.now());
    expect(await admitted('k')).toBe(before + 1);
  });

  it('an instance keeps to what it admitted on its own, through the outage and the window after', async () => {
    const { proxy, limiter, fallbackSwitch, admitted } = await limiterBehindProxy();
    await limiter.take('k', 3, Date.now());
    await limiter.take('k', 3, Date.now());
    proxy.cut();
    await until(() => !fallbackSwitch.state().shared, 2000);
    expect(await limiter.take('k', 3, Date.now())).toMatchObject({ allowed: true, remaining: 0 });
    expect(await limiter.take('k', 3, Date.now())).toMatchObject({ allowed: false });

    proxy.restore();
    await until(() => fallbackSwitch.state().shared, 5000);
    // Redis saw two admissions and would admit a third; this instance already admitted three.
    expect(await admitted('k')).toBe(2);
    expect(await limiter.take('k', 3, Date.now())).toMatchObject({ allowed: false });
    expect(await limiter.peek('k', 3, Date.now())).toMatchObject({ allowed: false });
    expect(await admitted('k')).toBe(2);
  });
});
