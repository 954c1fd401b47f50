import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { loadCatalog } from '../src/catalog/catalog-file.ts';
import { loadConfig } from '../src/config.ts';
import { issueApiKey } from '../src/keys/issue-key.ts';
import { createLogger } from '../src/logger.ts';
import { type RunningService, startService } from '../src/service.ts';
import { ExchangeSimulator } from '../src/simulator/exchange-simulator.ts';
import { openPostgresStore } from '../src/store/postgres/open-postgres-store.ts';
import type { ApiKeyStore } from '../src/store/types.ts';
import { createTestDatabase, skipPostgres } from './support/postgres.ts';
import { startSimulatedService } from './support/simulated-service.ts';
import { TcpProxy } from './support/tcp-proxy.ts';
import { LogCapture, sampleSnapshot } from './support/test-app.ts';
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

/** What one request answered: its status, and the problem's code and Retry-After when it failed. */
async function ask(
  url: string,
  key?: string,
): Promise<{ status: number; code?: string; retryAfter?: string }> {
  const response = await fetch(url, key === undefined ? {} : { headers: { 'x-api-key': key } });
  if (response.ok) {
    await response.arrayBuffer();
    return { status: response.status };
  }
  const type = response.headers.get('content-type') ?? '';
  const body = type.startsWith('application/problem+json')
    ? ((await response.json()) as { code: string })
    : null;
  return {
    status: response.status,
    ...(body === null ? {} : { code: body.code }),
    ...(response.headers.has('retry-after')
      ? { retryAfter: response.headers.get('retry-after') as string }
      : {}),
  };
}

interface OutageRig {
  service: RunningService;
  /** Makes the store stop answering this service, and answer again. */
  cut(): void | Promise<void>;
  restore(): void | Promise<void>;
  /** Revokes a key in the store itself, past the cut, as the CLI on another machine would. */
  revoke(id: string): Promise<void>;
}

/**
 * The promise of docs/operations.md#store-outages: while the store does not answer, keys this
 * instance has authenticated (even before the last key change) keep getting 200 from the snapshot
 * it holds, /readyz stays 200 and /v1/health warns; a key it never saw gets 503 with Retry-After;
 * once the store answers, everything is as before, and a revocation made meanwhile takes effect.
 */
async function outageDrill({ service, cut, restore, revoke }: OutageRig): Promise<void> {
  const rates = `${service.url}/v1/rates`;
  const readyz = (service.metricsUrl as string).replace('/metrics', '/readyz');
  const health = async () =>
    (await (await fetch(`${service.url}/v1/health`)).json()) as {
      checks: Record<string, Array<{ status: string; observedValue: unknown }>>;
    };
  await service.store.snapshots.commitSnapshot(sampleSnapshot(new Date().toISOString()));
  await waitFor(async () => (await ask(readyz)).status === 200, 5000, '/readyz 200');
  const issue = (org: string) => issueApiKey(service.store.keys, { org, purpose: 'outage test' });
  const kept = await issue('Kept');
  const revokedMeanwhile = await issue('Revoked during the outage');
  const changed = await issue('Revoked before the outage');
  const never = await issue('Never seen');
  for (const { key } of [kept, revokedMeanwhile, changed])
    expect(await ask(rates, key)).toEqual({ status: 200 });
  // A key change drops every cached key: the outage comes before they are used again.
  await revoke(changed.record.id);
  await waitFor(async () => (await ask(rates, changed.key)).status === 403, 5000, 'the revocation to apply');

  await cut();
  await waitFor(
    async () => (await health()).checks['store:connection']?.[0]?.status === 'warn',
    10_000,
    '/v1/health to report the store unreachable',
  );
  await revoke(revokedMeanwhile.record.id);
  const during: string[] = [];
  for (let i = 0; i < 20; i++) {
    during.push(`${(await ask(rates, kept.key)).status}`);
    during.push(`${(await ask(rates, revokedMeanwhile.key)).status}`);
    during.push(`readyz ${(await ask(readyz)).status}`);
  }
  expect(new Set(during)).toEqual(new Set(['200', 'readyz 200']));
  expect(await ask(rates, never.key)).toEqual({ status: 503, code: 'service-unavailable', retryAfter: '5' });
  expect((await health()).checks['store:connection']).toEqual([
    expect.objectContaining({ status: 'warn', observedValue: 'unreachable' }),
  ]);

  await restore();
  await waitFor(
    async () => (await ask(rates, never.key)).status === 200,
    20_000,
    'the unseen key to be served',
  );
  await waitFor(
    async () => (await health()).checks['store:connection'] === undefined,
    5000,
    '/v1/health to see the store',
  );
  await waitFor(
    async () => (await ask(rates, revokedMeanwhile.key)).status === 403,
    5000,
    'the revocation made during the outage to apply',
  );
  expect(await ask(rates, kept.key)).toEqual({ status: 200 });
  expect(await ask(readyz)).toEqual({ status: 200 });
}

describe('a store outage', () => {
  it.skipIf(skipPostgres)(
    'costs no request for a key seen before on PostgreSQL, cut off through a proxy',
    {
      timeout: 60_000,
    },
    async () => {
      const databaseUrl = await createTestDatabase();
      const direct = await openPostgresStore({
        NERKH_DATABASE_URL: databaseUrl,
        NERKH_DATABASE_POOL_SIZE: 2,
        NERKH_SNAPSHOT_RETENTION: 1000,
      });
      onTestFinished(() => direct.close());
      const proxy = await TcpProxy.start(Number(new URL(databaseUrl).port || 5432));
      onTestFinished(() => proxy.close());
      const throughProxy = new URL(databaseUrl);
      throughProxy.port = String(proxy.port);
      const service = await startService({
        config: loadConfig({
          NERKH_DATABASE_URL: throughProxy.toString(),
          PORT: '0',
          NERKH_METRICS_PORT: '0',
        }),
        logger: createLogger('silent'),
        role: 'api',
        apiPollMs: 100,
      });
      onTestFinished(() => service.stop());
      await outageDrill({
        service,
        cut: () => proxy.cut(),
        restore: () => proxy.restore(),
        revoke: async (id) => {
          await direct.keys.revokeApiKey(id);
        },
      });
    },
  );

  it('costs no request for a key seen before on SQLite, whose calls throw', { timeout: 30_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'nerkh-outage-'));
    onTestFinished(() => rmSync(dataDir, { recursive: true, force: true }));
    const service = await startService({
      config: loadConfig({ NERKH_DATA_DIR: dataDir, PORT: '0', NERKH_METRICS_PORT: '0' }),
      logger: createLogger('silent'),
      role: 'api',
      apiPollMs: 100,
    });
    onTestFinished(() => service.stop());
    // Every read the API makes of the store throws, as a disk that fails would.
    const { keys, snapshots } = service.store;
    const reads = {
      keys: ['findApiKeyByHash', 'apiKeysVersion', 'recordApiKeyUse'] as const,
      snapshots: ['latestSnapshotId', 'latestSnapshot', 'getCollectorStatus'] as const,
    };
    const saved = {
      keys: reads.keys.map((name) => [name, keys[name]] as const),
      snapshots: reads.snapshots.map((name) => [name, snapshots[name]] as const),
    };
    const failing = async () => {
      throw Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' });
    };
    const restore = () => {
      for (const [name, method] of saved.keys) Object.assign(keys, { [name]: method });
      for (const [name, method] of saved.snapshots) Object.assign(snapshots, { [name]: method });
    };
    onTestFinished(restore);
    // Revoked by the store's own method, which the cut leaves alone.
    const revokeIn = (store: ApiKeyStore) => async (id: string) => {
      await store.revokeApiKey(id);
    };
    await outageDrill({
      service,
      cut: () => {
        for (const name of reads.keys) Object.assign(keys, { [name]: failing });
        for (const name of reads.snapshots) Object.assign(snapshots, { [name]: failing });
      },
      restore,
      revoke: revokeIn(keys),
    });
  });
});
