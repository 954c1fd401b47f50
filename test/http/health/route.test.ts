import { describe, expect, it, onTestFinished } from 'vitest';
import { openRedisLimiters } from '../../../src/limiter/open-redis-limiters.ts';
import { createLogger } from '../../../src/logger.ts';
import { redisAvailable } from '../../support/redis.ts';
import { freePort } from '../../support/run-cli.ts';
import { TcpProxy } from '../../support/tcp-proxy.ts';
import {
  buildTestApp,
  healthyCollector,
  LogCapture,
  sampleSnapshot,
  testConfig,
} from '../../support/test-app.ts';
import { waitFor } from '../../support/wait.ts';

const redisAnswers = await redisAvailable('Health with Redis limits');

describe('GET /v1/health', () => {
  it('answers application/health+json without a key, never cached, on both paths', async () => {
    const t = await buildTestApp();
    onTestFinished(() => t.app.close());
    for (const url of ['/v1/health', '/health']) {
      const response = await t.app.inject({ url });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/health\+json/);
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.headers.ratelimit).toBeUndefined();
      expect(response.json()).toMatchObject({ status: 'pass', count: 4, age_seconds: 60 });
    }
  });

  it('answers 503 fail before the first snapshot and 200 warn when it is getting old', async () => {
    const starting = await buildTestApp({ snapshot: null });
    onTestFinished(() => starting.app.close());
    const none = await starting.app.inject({ url: '/v1/health' });
    expect(none.statusCode).toBe(503);
    expect(none.json().status).toBe('fail');

    const unreported = await buildTestApp({ snapshot: sampleSnapshot(), collector: null });
    onTestFinished(() => unreported.app.close());
    const warn = await unreported.app.inject({ url: '/v1/health' });
    expect(warn.statusCode).toBe(200);
    expect(warn.json().status).toBe('warn');
  });

  it('warns on a failed snapshot commit in /v1/health and on the status page, and keeps serving the last snapshot', async () => {
    const clock = Date.parse('2025-01-01T12:01:00.000Z');
    const t = await buildTestApp({
      collector: {
        ...healthyCollector(clock),
        last_commit: {
          outcome: 'failed',
          at: '2025-01-01T12:00:58.000Z',
          duration_ms: 3.1,
          error: 'SqliteError SQLITE_READONLY',
          last_ok_at: '2025-01-01T12:00:00.000Z',
        },
      },
    });
    onTestFinished(() => t.app.close());
    const health = await t.app.inject({ url: '/v1/health' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toMatchObject({ status: 'warn', count: 4 });
    expect(health.json().checks['collector:commit'][0]).toMatchObject({
      status: 'warn',
      observedValue: 'failed',
      error: 'SqliteError SQLITE_READONLY',
      last_ok_at: '2025-01-01T12:00:00.000Z',
    });
    const rates = await t.app.inject({ url: '/v1/rates', headers: { 'x-api-key': t.key } });
    expect(rates.statusCode).toBe(200);
    expect(rates.json().updated_at).toBe('2025-01-01T12:00:00.000Z');
    const page = await t.app.inject({ url: '/status', headers: { accept: 'text/markdown' } });
    expect(page.body).toContain('**Status: warn.**');
    expect(page.body).toMatch(
      /\| collector:commit \| warn \| .* \| The last snapshot commit failed \(SqliteError SQLITE\\_READONLY\)/,
    );
  });

  it('warns with the reason while Redis does not answer, and still admits keyed requests', async () => {
    const logs = new LogCapture();
    const redisUrl = `redis://127.0.0.1:${await freePort()}`;
    const config = testConfig({ NERKH_REDIS_URL: redisUrl });
    const limiters = await openRedisLimiters(config, createLogger('info', logs));
    onTestFinished(() => limiters.close());
    const t = await buildTestApp({ env: { NERKH_REDIS_URL: redisUrl }, deps: { limiters } });
    onTestFinished(() => t.app.close());

    const response = await t.app.inject({ url: '/v1/health' });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.status).toBe('warn');
    expect(body.checks['limiter:shared']).toEqual([
      expect.objectContaining({
        status: 'warn',
        observedValue: 'local',
        output: expect.stringMatching(
          /Redis does not answer \(.*ECONNREFUSED.*\); each instance limits on its own/,
        ),
      }),
    ]);
    expect(body.output).toContain('limiter:shared:');
    for (let i = 0; i < 3; i++) {
      const rates = await t.app.inject({ url: '/v1/rates', headers: { 'x-api-key': t.key } });
      expect(rates.statusCode).toBe(200);
    }
    // Logged once, when limits went local; not per request or per health check.
    expect(logs.lines.filter((line) => line.includes('Redis unreachable'))).toHaveLength(1);
  });

  it.skipIf(!redisAnswers)(
    'passes while Redis answers, warns while it does not, and passes again once it is back',
    {
      timeout: 20_000,
    },
    async () => {
      const proxy = await TcpProxy.start(6379);
      onTestFinished(() => proxy.close());
      const redisUrl = `redis://127.0.0.1:${proxy.port}`;
      const limiters = await openRedisLimiters(
        testConfig({ NERKH_REDIS_URL: redisUrl }),
        createLogger('silent'),
      );
      onTestFinished(() => limiters.close());
      const t = await buildTestApp({ env: { NERKH_REDIS_URL: redisUrl }, deps: { limiters } });
      onTestFinished(() => t.app.close());
      const limiterCheck = async () =>
        (await t.app.inject({ url: '/v1/health' })).json().checks['limiter:shared'][0];

      expect(await limiterCheck()).toMatchObject({ status: 'pass', observedValue: 'shared' });
      proxy.cut();
      await waitFor(() => limiters.sharedState().shared === false, 5000, 'limits to go local');
      expect(await limiterCheck()).toMatchObject({ status: 'warn', observedValue: 'local' });
      proxy.restore();
      await waitFor(() => limiters.sharedState().shared, 5000, 'limits to be shared again');
      expect(await limiterCheck()).toMatchObject({ status: 'pass', observedValue: 'shared' });
    },
  );
});
