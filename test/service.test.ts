import { describe, expect, it, onTestFinished } from 'vitest';
import { loadCatalog } from '../src/catalog/catalog-file.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { startService } from '../src/service.ts';
import { ExchangeSimulator } from '../src/simulator/exchange-simulator.ts';
import { createTestDatabase, skipPostgres } from './support/postgres.ts';
import { startSimulatedService } from './support/simulated-service.ts';
import { LogCapture } from './support/test-app.ts';
import { waitFor } from './support/wait.ts';

const catalog = loadCatalog().filter((entry) => ['USDT', 'BTC', 'ETH'].includes(entry.symbol));

describe.skipIf(skipPostgres)('startService on PostgreSQL', () => {
  it('runs one collector among two collector instances, which the API names, and hands it over when the leader stops', {
    timeout: 30_000,
  }, async () => {
    const sim = await ExchangeSimulator.start({ catalog, seed: 5, retryAfterSeconds: 0 });
    onTestFinished(() => sim.stop());
    const env = {
      NERKH_DATABASE_URL: await createTestDatabase(),
      NERKH_DATABASE_POOL_SIZE: '2',
      NERKH_BINANCE_WS_URL: sim.wsBaseUrl,
      NERKH_BINANCE_REST_URL: sim.restBaseUrl,
      NERKH_NOBITEX_URL: sim.nobitexBaseUrl,
      NERKH_REFRESH_SECONDS: '1',
      NERKH_COLLECTOR_LEASE_SECONDS: '3',
      PORT: '0',
      LOG_LEVEL: 'info',
    };
    const start = async (name: string, role: 'api' | 'collector') => {
      const logs = new LogCapture();
      const service = await startService({
        config: loadConfig({ ...env, NERKH_INSTANCE_ID: name }),
        logger: createLogger('info', logs),
        role,
        tuning: { firstCommitGraceMs: 500, pollMs: 200, minPollMs: 200 },
      });
      onTestFinished(() => service.stop());
      return { service, logs };
    };
    const first = await start('collector-1', 'collector');
    const second = await start('collector-2', 'collector');
    const api = await start('api-1', 'api');
    const health = async () => {
      const response = await fetch(`${api.service.url}/v1/health`);
      return (await response.json()) as { checks: Record<string, Array<{ observedValue: unknown }>> };
    };

    await waitFor(
      async () => (await health()).checks['collector:leader']?.[0]?.observedValue === 'collector-1',
      5000,
      'the API to name the leader',
    );
    await waitFor(() => first.logs.text.includes('snapshot committed'), 10_000, 'the leader to commit');
    expect(second.logs.text).toContain('instance collector-1 leads; this instance stands by');
    expect(second.logs.text).not.toContain('snapshot committed');

    await first.service.stop();
    await waitFor(() => second.logs.text.includes('snapshot committed'), 10_000, 'the standby to commit');
    await waitFor(
      async () => (await health()).checks['collector:leader']?.[0]?.observedValue === 'collector-2',
      3000,
      'the API to name the new leader',
    );
  });
});

describe('startService in one process (role all)', () => {
  it("serves each of its collector's commits at once, not at the API's next poll of the store", {
    timeout: 30_000,
  }, async () => {
    const service = await startSimulatedService({
      symbols: ['USDT', 'BTC', 'ETH'],
      logger: createLogger('silent'),
      env: { NERKH_REFRESH_SECONDS: '1' },
      // The API reads the store once at its start, then not again within this test.
      apiPollMs: 600_000,
    });
    const servedAt = async () => {
      const body = (await (await fetch(`${service.url}/v1/health`)).json()) as { updated_at: string | null };
      return body.updated_at;
    };
    const committedAt = async () => (await service.store.snapshots.latestSnapshot())?.updated_at ?? null;

    // A commit every second: each is served within a fraction of it, with no poll in between.
    const served = new Set<string>();
    await waitFor(
      async () => {
        const committed = await committedAt();
        const serving = await servedAt();
        if (serving !== null) served.add(serving);
        return committed !== null && serving === committed && served.size >= 3;
      },
      10_000,
      'three commits served as they are made',
    );
    expect(served.size).toBeGreaterThanOrEqual(3);
  });
});
