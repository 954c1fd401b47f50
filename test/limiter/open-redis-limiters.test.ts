import { randomBytes } from 'node:crypto';
import { describe, expect, it, onTestFinished } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import {
  failedKeyPrefix,
  openRedisLimiters,
  requestKeyPrefix,
} from '../../src/limiter/open-redis-limiters.ts';
import { redisConnection } from '../../src/limiter/redis/connection.ts';
import { createLogger } from '../../src/logger.ts';
import { admissionsIn, redisAvailable, startPrivateRedis, testRedisUrl } from '../support/redis.ts';
import { freePort } from '../support/run-cli.ts';
import { TcpProxy } from '../support/tcp-proxy.ts';

function capturedLogger() {
  const lines: Array<{ level: number; reason?: string }> = [];
  const logger = createLogger('info', { write: (line: string) => lines.push(JSON.parse(line)) });
  return {
    logger,
    warnings: () => lines.filter((line) => line.level === 40),
    text: () => JSON.stringify(lines),
  };
}

const available = await redisAvailable('openRedisLimiters against Redis');

describe('openRedisLimiters', () => {
  it('starts with local limits when no Redis answers, says why once, and fails no request', async () => {
    const port = await freePort();
    const { logger, warnings } = capturedLogger();
    const limiters = await openRedisLimiters(
      loadConfig({ NERKH_REDIS_URL: `redis://127.0.0.1:${port}`, LOG_LEVEL: 'silent' }),
      logger,
    );
    onTestFinished(() => limiters.close());
    expect(limiters.sharedState()).toMatchObject({
      shared: false,
      reason: expect.stringContaining('ECONNREFUSED'),
    });
    expect(limiters.requests.take('k', 2, 0)).toMatchObject({ allowed: true, remaining: 1 });
    expect(limiters.requests.take('k', 2, 1)).toMatchObject({ allowed: true, remaining: 0 });
    expect(limiters.requests.take('k', 2, 2)).toMatchObject({ allowed: false });
    // The invalid-key throttle counts apart from the requests.
    expect(limiters.failedKeys.fail('k', 2, 2)).toMatchObject({ allowed: true, remaining: 1 });
    expect(warnings()).toHaveLength(1);
  });

  it.skipIf(!available)('becomes shared without a restart once Redis answers', async () => {
    const proxy = await TcpProxy.start(6379);
    onTestFinished(() => proxy.close());
    proxy.cut();
    const { logger, warnings } = capturedLogger();
    const limiters = await openRedisLimiters(
      loadConfig({ NERKH_REDIS_URL: `redis://127.0.0.1:${proxy.port}`, LOG_LEVEL: 'silent' }),
      logger,
    );
    onTestFinished(() => limiters.close());
    expect(limiters.sharedState().shared).toBe(false);
    proxy.restore();
    const deadline = Date.now() + 5000;
    while (!limiters.sharedState().shared && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(limiters.sharedState()).toMatchObject({ shared: true, reason: null });
    expect(warnings()).toHaveLength(1);
  });

  it.skipIf(!available)(
    'shares requests and invalid keys through Redis, each under its own keys',
    async () => {
      const admin = redisConnection(testRedisUrl, { commandTimeoutMs: 5000 });
      // A name no other run uses, under the limiters' fixed prefixes.
      const name = `nerkh-test:${process.pid}:${randomBytes(4).toString('hex')}`;
      onTestFinished(async () => {
        await admin.del(`${requestKeyPrefix}{${name}}`, `${failedKeyPrefix}{${name}}`);
        await admin.quit();
      });
      await admin.connect();
      const limiters = await openRedisLimiters(
        loadConfig({ NERKH_REDIS_URL: testRedisUrl, LOG_LEVEL: 'silent' }),
        createLogger('silent'),
      );
      onTestFinished(() => limiters.close());
      expect(limiters.sharedState()).toMatchObject({ shared: true, reason: null });
      expect(await limiters.requests.take(name, 60, Date.now())).toMatchObject({
        allowed: true,
        remaining: 59,
      });
      expect(await limiters.failedKeys.fail(name, 30, Date.now())).toMatchObject({
        allowed: true,
        remaining: 29,
      });
      expect(await admissionsIn(admin, `${requestKeyPrefix}{${name}}`)).toHaveLength(1);
      expect(await admissionsIn(admin, `${failedKeyPrefix}{${name}}`)).toHaveLength(1);
    },
  );

  it.skipIf(!available)(
    'waits NERKH_REDIS_TIMEOUT_MS for a Redis that stops answering, then decides alone',
    async () => {
      const proxy = await TcpProxy.start(6379);
      onTestFinished(() => proxy.close());
      const limiters = await openRedisLimiters(
        loadConfig({
          NERKH_REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
          NERKH_REDIS_TIMEOUT_MS: '600',
          LOG_LEVEL: 'silent',
        }),
        createLogger('silent'),
      );
      onTestFinished(() => limiters.close());
      expect(limiters.sharedState().shared).toBe(true);
      proxy.stall();
      const sent = performance.now();
      expect(await limiters.requests.take('k', 2, Date.now())).toMatchObject({ allowed: true });
      const waited = performance.now() - sent;
      expect(waited).toBeGreaterThanOrEqual(600);
      expect(waited).toBeLessThan(1500);
      // Decided alone once Redis answers nothing, not even a PING, for a second after the timeout.
      const deadline = Date.now() + 5000;
      while (limiters.sharedState().shared && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      expect(limiters.sharedState()).toMatchObject({
        shared: false,
        reason: expect.stringContaining('timed out'),
      });
    },
  );
});

describe.skipIf(!available)('openRedisLimiters with a Redis that requires a password', () => {
  const password = `pw-${randomBytes(12).toString('hex')}`;

  /** Limiters on `url`, closed when the test ends, with what they logged. */
  async function limitersOn(url: string) {
    const captured = capturedLogger();
    const limiters = await openRedisLimiters(
      loadConfig({ NERKH_REDIS_URL: url, LOG_LEVEL: 'silent' }),
      captured.logger,
    );
    onTestFinished(() => limiters.close());
    return { limiters, logged: captured.text };
  }

  it('shares the limits with the password in the URL (redis://:PASSWORD@host), and says why without it', async () => {
    const redis = await startPrivateRedis({ password });
    onTestFinished(() => redis.stop());
    const admin = redisConnection(`redis://:${password}@127.0.0.1:${redis.port}`, { commandTimeoutMs: 5000 });
    onTestFinished(async () => {
      await admin.quit();
    });
    await admin.connect();

    const { limiters } = await limitersOn(`redis://:${password}@127.0.0.1:${redis.port}`);
    expect(limiters.sharedState()).toMatchObject({ shared: true, reason: null });
    expect(await limiters.requests.take('k', 60, Date.now())).toMatchObject({ allowed: true, remaining: 59 });
    expect(await admissionsIn(admin, `${requestKeyPrefix}{k}`)).toHaveLength(1);

    // Without the password, or with a wrong one, the limits stay local and /v1/health's reason
    // says why; neither the reason nor the log repeats a password.
    const anonymous = await limitersOn(`redis://127.0.0.1:${redis.port}`);
    expect(anonymous.limiters.sharedState()).toMatchObject({
      shared: false,
      reason: expect.stringContaining('NOAUTH'),
    });
    const wrong = await limitersOn(`redis://:not-${password}@127.0.0.1:${redis.port}`);
    expect(wrong.limiters.sharedState()).toMatchObject({
      shared: false,
      reason: expect.stringContaining('WRONGPASS'),
    });
    expect(JSON.stringify(wrong.limiters.sharedState())).not.toContain(password);
    expect(wrong.logged()).not.toContain(password);
  });

  it('speaks TLS to a rediss:// URL and checks the server certificate', async () => {
    const redis = await startPrivateRedis({ password, tls: true });
    onTestFinished(() => redis.stop());
    // The certificate is self-signed and this process does not trust it: the handshake happened
    // and the certificate was refused, so nothing (the password included) was sent in clear.
    const { limiters } = await limitersOn(`rediss://:${password}@127.0.0.1:${redis.tlsPort}`);
    expect(limiters.sharedState()).toMatchObject({
      shared: false,
      reason: expect.stringContaining('self-signed certificate'),
    });
  });
});

describe.skipIf(!available)('the invalid-key pause across instances sharing Redis', () => {
  /** Waits up to `ms` for `condition`, polling. */
  async function eventually(condition: () => boolean, ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    return condition();
  }

  async function instance() {
    const limiters = await openRedisLimiters(
      loadConfig({ NERKH_REDIS_URL: testRedisUrl, LOG_LEVEL: 'silent' }),
      createLogger('silent'),
    );
    onTestFinished(() => limiters.close());
    return limiters;
  }

  it('pauses an address on instance B as soon as A counts its last allowed failure, and on an instance that connects later', async () => {
    const admin = redisConnection(testRedisUrl, { commandTimeoutMs: 5000 });
    // An address no other run uses; the throttle's fixed keys are cleaned of it afterwards.
    const address = `nerkh-test:${process.pid}:${randomBytes(4).toString('hex')}`;
    onTestFinished(async () => {
      await admin.del(`${failedKeyPrefix}{${address}}`);
      await admin.zrem('nerkh:fk-paused', address);
      await admin.quit();
    });
    await admin.connect();
    const a = await instance();
    const b = await instance();
    // B subscribes when its second connection is ready.
    await new Promise((r) => setTimeout(r, 200));
    expect(await a.failedKeys.fail(address, 2, Date.now())).toMatchObject({ allowed: true, remaining: 1 });
    expect(b.failedKeys.pausedSeconds(address, Date.now())).toBe(0);
    expect(await a.failedKeys.fail(address, 2, Date.now())).toMatchObject({ allowed: true, remaining: 0 });
    expect(a.failedKeys.pausedSeconds(address, Date.now())).toBe(60);
    // Told by A, not by a round trip of its own.
    expect(await eventually(() => b.failedKeys.pausedSeconds(address, Date.now()) > 0, 1000)).toBe(true);
    expect(b.failedKeys.pausedSeconds(address, Date.now())).toBeGreaterThanOrEqual(59);
    // An instance that was not listening when A paused the address reads the pauses in force.
    const c = await instance();
    expect(await eventually(() => c.failedKeys.pausedSeconds(address, Date.now()) > 0, 2000)).toBe(true);
    // The count itself stays exact and shared: a third failure, on any instance, is refused.
    expect(await c.failedKeys.fail(address, 2, Date.now())).toMatchObject({ allowed: false });
  });
});
