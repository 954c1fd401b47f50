import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { RequestDurations } from '../../src/metrics/request-durations.ts';
import { seriesValue } from '../support/scrape.ts';

describe('RequestDurations', () => {
  it('prints a Prometheus histogram per route and status: cumulative buckets, +Inf, sum and count', async () => {
    const registry = new Registry();
    const durations = new RequestDurations(registry);
    for (const seconds of [0.0004, 0.0005, 0.002, 3]) durations.observe('/v1/rates', 200, seconds);
    durations.observe('/v1/rates', 429, 0.0001);
    const scrape = await registry.metrics();
    expect(scrape).toContain('# TYPE nerkh_http_request_duration_seconds histogram');
    const bucket = (le: string, status = 200) =>
      seriesValue(
        scrape,
        `nerkh_http_request_duration_seconds_bucket{le="${le}",route="/v1/rates",status_code="${status}"}`,
      );
    expect(bucket('0.0005')).toBe(2);
    expect(bucket('0.001')).toBe(2);
    expect(bucket('0.0025')).toBe(3);
    expect(bucket('2.5')).toBe(3);
    expect(bucket('+Inf')).toBe(4);
    expect(bucket('+Inf', 429)).toBe(1);
    expect(
      seriesValue(scrape, 'nerkh_http_request_duration_seconds_count{route="/v1/rates",status_code="200"}'),
    ).toBe(4);
    expect(
      seriesValue(scrape, 'nerkh_http_request_duration_seconds_sum{route="/v1/rates",status_code="200"}'),
    ).toBeCloseTo(3.0029);
  });

  it('counts each observation in its own route and status when they alternate', async () => {
    const registry = new Registry();
    const durations = new RequestDurations(registry);
    // A route equal to another but a string of its own, as Fastify's template and the fast path's are.
    const sameRoute = ['', 'v1', 'rates'].join('/');
    const observations: Array<[string, number]> = [
      ['/v1/rates', 200],
      ['/v1/rates', 304],
      [sameRoute, 200],
      ['/v1/health', 200],
      ['/v1/rates', 200],
      ['/v1/health', 503],
      ['/v1/rates', 304],
    ];
    for (const [route, status] of observations) durations.observe(route, status, 0.001);
    const scrape = await registry.metrics();
    const count = (route: string, status: number) =>
      seriesValue(
        scrape,
        `nerkh_http_request_duration_seconds_count{route="${route}",status_code="${status}"}`,
      );
    expect(count('/v1/rates', 200)).toBe(3);
    expect(count('/v1/rates', 304)).toBe(2);
    expect(count('/v1/health', 200)).toBe(1);
    expect(count('/v1/health', 503)).toBe(1);
  });
});
