import { Registry } from 'prom-client';
import { describe, expect, it, onTestFinished } from 'vitest';
import { openRedisLimiters } from '../../src/limiter/open-redis-limiters.ts';
import { createLogger } from '../../src/logger.ts';
import { HttpMetrics } from '../../src/metrics/http-metrics.ts';
import { freePort } from '../support/run-cli.ts';
import { buildTestApp, testConfig } from '../support/test-app.ts';

describe('HttpMetrics', () => {
  it('counts failed-key throttling and invalid keys, and says the limits are not in fallback without Redis', async () => {
    const registry = new Registry();
    const t = await buildTestApp({ deps: { metrics: new HttpMetrics(registry), failureLimit: 2 } });
    onTestFinished(() => t.app.close());
    const wrongKey = `nerkh_${'A'.repeat(22)}_AAAAAA`;
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 4; attempt++) {
      statuses.push(
        (await t.app.inject({ url: '/v1/rates', headers: { 'x-api-key': wrongKey } })).statusCode,
      );
    }
    expect(statuses).toEqual([403, 403, 429, 429]);
    const scrape = await registry.metrics();
    expect(scrape).toContain('nerkh_invalid_api_keys_total 2');
    expect(scrape).toContain('nerkh_key_checks_paused_total 2');
    // In memory the limits are never shared, so they are never in fallback.
    expect(scrape).toContain('nerkh_rate_limit_fallback 0');
    expect(scrape).toContain('nerkh_redis_errors_total 0');
  });

  it('shows the limits in fallback, and counts Redis errors, while Redis does not answer', async () => {
    const redisUrl = `redis://127.0.0.1:${await freePort()}`;
    const limiters = await openRedisLimiters(
      testConfig({ NERKH_REDIS_URL: redisUrl }),
      createLogger('silent'),
    );
    onTestFinished(() => limiters.close());
    const registry = new Registry();
    const t = await buildTestApp({
      env: { NERKH_REDIS_URL: redisUrl },
      deps: { limiters, metrics: new HttpMetrics(registry) },
    });
    onTestFinished(() => t.app.close());
    expect((await t.app.inject({ url: '/v1/rates', headers: { 'x-api-key': t.key } })).statusCode).toBe(200);
    const scrape = await registry.metrics();
    expect(scrape).toContain('nerkh_rate_limit_fallback 1');
    expect(Number(/^nerkh_redis_errors_total (\d+)/m.exec(scrape)?.[1])).toBeGreaterThanOrEqual(1);
    expect(scrape).toContain('nerkh_rate_limit_decisions_total{decision="admitted"} 1');
  });
});
