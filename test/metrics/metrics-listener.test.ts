import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { issueApiKey } from '../../src/keys/issue-key.ts';
import { createLogger } from '../../src/logger.ts';
import { type RunningService, startService } from '../../src/service.ts';
import { seriesValue } from '../support/scrape.ts';
import { startSimulatedService } from '../support/simulated-service.ts';
import { sampleSnapshot } from '../support/test-app.ts';
import { waitFor } from '../support/wait.ts';

const startAgainstSimulator = (env: Record<string, string> = {}) =>
  startSimulatedService({ symbols: ['USDT', 'BTC', 'ETH'], logger: createLogger('silent'), env });

describe('the metrics listener', () => {
  it('serves Prometheus metrics on loopback, never on the public port, counting what the API and the collector did', {
    timeout: 20_000,
  }, async () => {
    const service = await startAgainstSimulator({ NERKH_RATE_LIMIT: '2' });
    expect(service.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const metricsUrl = service.metricsUrl as string;

    const { key } = await issueApiKey(service.store.keys, { org: 'Metrics Org', purpose: 'tests' });
    const statuses: number[] = [];
    for (const headers of [
      { 'x-api-key': key },
      { 'x-api-key': key },
      { 'x-api-key': key },
      { 'x-api-key': 'nope' },
    ]) {
      statuses.push((await fetch(`${service.url}/v1/rates`, { headers })).status);
    }
    expect(statuses).toEqual([200, 200, 429, 403]);
    expect((await fetch(`${service.url}/metrics`)).status).toBe(404);

    const response = await fetch(metricsUrl);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const scrape = await response.text();
    const rates200 = 'nerkh_http_request_duration_seconds_count{route="/v1/rates",status_code="200"}';
    expect(seriesValue(scrape, rates200)).toBe(2);
    expect(
      seriesValue(scrape, 'nerkh_http_request_duration_seconds_count{route="/v1/rates",status_code="429"}'),
    ).toBe(1);
    expect(
      seriesValue(scrape, 'nerkh_http_request_duration_seconds_count{route="unmatched",status_code="404"}'),
    ).toBe(1);
    expect(seriesValue(scrape, 'nerkh_rate_limit_decisions_total{decision="admitted"}')).toBe(2);
    expect(seriesValue(scrape, 'nerkh_rate_limit_decisions_total{decision="refused"}')).toBe(1);
    expect(seriesValue(scrape, 'nerkh_invalid_api_keys_total')).toBe(1);
    // The new key is read from the store once, and again if the key version poll dropped the cache.
    const misses = seriesValue(scrape, 'nerkh_api_key_cache_lookups_total{result="miss"}') ?? 0;
    const hits = seriesValue(scrape, 'nerkh_api_key_cache_lookups_total{result="hit"}') ?? 0;
    expect(misses).toBeGreaterThanOrEqual(1);
    expect(hits + misses).toBe(3);
    expect(seriesValue(scrape, 'nerkh_snapshot_commits_total{outcome="ok"}')).toBeGreaterThanOrEqual(1);
    expect(seriesValue(scrape, 'nerkh_snapshot_age_seconds')).toBeLessThan(60);
    expect(seriesValue(scrape, 'nerkh_collector_leader')).toBe(1);
    expect(seriesValue(scrape, 'nerkh_source_state{source="nobitex",state="up"}')).toBe(1);
    expect(seriesValue(scrape, 'nerkh_source_coins{source="binance"}')).toBe(2);
    expect(scrape).toContain('process_cpu_user_seconds_total');
    expect(scrape).toContain('nodejs_eventloop_lag_seconds');
    // Only /metrics, only GET/HEAD.
    expect((await fetch(metricsUrl.replace('/metrics', '/v1/rates'))).status).toBe(404);
    expect((await fetch(metricsUrl, { method: 'POST' })).status).toBe(405);
  });

  it('shows a collector-only process its collector figures and none of the API’s', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'nerkh-collector-metrics-'));
    onTestFinished(() => rmSync(dataDir, { recursive: true, force: true }));
    const service = await startService({
      config: loadConfig({
        NERKH_DATA_DIR: dataDir,
        NERKH_BINANCE_WS_URL: 'ws://127.0.0.1:9',
        NERKH_BINANCE_REST_URL: 'http://127.0.0.1:9',
        NERKH_NOBITEX_URL: 'http://127.0.0.1:9',
        NERKH_METRICS_PORT: '0',
      }),
      logger: createLogger('silent'),
      role: 'collector',
    });
    onTestFinished(() => service.stop());
    const scrape = await (await fetch(service.metricsUrl as string)).text();
    expect(seriesValue(scrape, 'nerkh_collector_leader')).toBe(1);
    expect(scrape).toContain('nerkh_source_state{source="binance"');
    expect(scrape).not.toContain('nerkh_snapshot_age_seconds');
    expect(scrape).not.toContain('nerkh_rate_limit_decisions_total');
  });

  it('is off unless NERKH_METRICS_PORT is set, and refuses the public port', async () => {
    const service = await startAgainstSimulator({ NERKH_METRICS_PORT: '' });
    expect(service.metricsUrl).toBeNull();
    expect(() => loadConfig({ PORT: '8080', NERKH_METRICS_PORT: '8080' })).toThrow(ConfigError);
    expect(() => loadConfig({ NERKH_METRICS_HOST: '0.0.0.0' })).toThrow(/NERKH_METRICS_HOST has no effect/);
  });
});

describe('the probes on the metrics listener', () => {
  /** An API-only process over a store of its own, with the metrics listener on a free port. */
  async function startApi(): Promise<RunningService> {
    const dataDir = mkdtempSync(join(tmpdir(), 'nerkh-probes-'));
    onTestFinished(() => rmSync(dataDir, { recursive: true, force: true }));
    const service = await startService({
      config: loadConfig({ NERKH_DATA_DIR: dataDir, PORT: '0', NERKH_METRICS_PORT: '0' }),
      logger: createLogger('silent'),
      role: 'api',
      apiPollMs: 100,
    });
    onTestFinished(() => service.stop());
    return service;
  }

  async function probe(service: RunningService, path: string): Promise<[number, string]> {
    const response = await fetch((service.metricsUrl as string).replace('/metrics', path));
    return [response.status, await response.text()];
  }

  it('answers /readyz 503 until a snapshot is loaded, then 200 even when it is stale and /v1/health is 503', async () => {
    const service = await startApi();
    expect(await probe(service, '/livez')).toEqual([200, 'live\n']);
    expect(await probe(service, '/readyz')).toEqual([503, 'no snapshot loaded yet\n']);

    // A snapshot a day old: the sources are out, and clients still get the last prices.
    await service.store.snapshots.commitSnapshot(
      sampleSnapshot(new Date(Date.now() - 86_400_000).toISOString()),
    );
    await waitFor(async () => (await probe(service, '/readyz'))[0] === 200, 5000, '/readyz 200');
    expect(await probe(service, '/readyz')).toEqual([200, 'ready\n']);
    expect((await fetch(`${service.url}/v1/health`)).status).toBe(503);

    // Never on the public port: the API keeps its two data endpoints.
    for (const path of ['/livez', '/readyz']) {
      expect((await fetch(`${service.url}${path}`)).status).toBe(404);
    }
    const head = await fetch((service.metricsUrl as string).replace('/metrics', '/readyz'), {
      method: 'HEAD',
    });
    expect([head.status, await head.text()]).toEqual([200, '']);
  });

  it('stays ready while the store fails, serving what it holds, and says so in /v1/health', async () => {
    const service = await startApi();
    await service.store.snapshots.commitSnapshot(sampleSnapshot(new Date().toISOString()));
    await waitFor(async () => (await probe(service, '/readyz'))[0] === 200, 5000, '/readyz 200');
    const { latestSnapshotId } = service.store.snapshots;
    service.store.snapshots.latestSnapshotId = async () => {
      throw Object.assign(new Error('disk I/O error at /var/lib/nerkh/nerkh.db'), { code: 'SQLITE_IOERR' });
    };
    onTestFinished(() => {
      service.store.snapshots.latestSnapshotId = latestSnapshotId;
    });
    const { getCollectorStatus } = service.store.snapshots;
    service.store.snapshots.getCollectorStatus = async () => {
      throw Object.assign(new Error('disk I/O error at /var/lib/nerkh/nerkh.db'), { code: 'SQLITE_IOERR' });
    };
    onTestFinished(() => {
      service.store.snapshots.getCollectorStatus = getCollectorStatus;
    });
    expect(await probe(service, '/readyz')).toEqual([200, 'ready\n']);
    expect(await probe(service, '/livez')).toEqual([200, 'live\n']);
    const health = (await (await fetch(`${service.url}/v1/health`)).json()) as {
      checks: Record<string, unknown>;
    };
    expect(health.checks['store:connection']).toEqual([
      expect.objectContaining({ status: 'warn', observedValue: 'unreachable' }),
    ]);
  });
});
