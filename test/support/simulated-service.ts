import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { loadCatalog } from '../../src/catalog/catalog-file.ts';
import { loadConfig } from '../../src/config.ts';
import type { Logger } from '../../src/logger.ts';
import { type RunningService, startService } from '../../src/service.ts';
import { ExchangeSimulator } from '../../src/simulator/exchange-simulator.ts';
import { waitFor } from './wait.ts';

/**
 * The whole service (role `all`, SQLite in a temporary directory, a metrics listener on a free
 * port) against the exchange simulator quoting `symbols`, serving a snapshot that holds every one
 * of them; everything is stopped and deleted when the test ends.
 */
export async function startSimulatedService(options: {
  symbols: readonly string[];
  logger: Logger;
  env?: Record<string, string>;
  /** How often the API polls the store (default 1 s). */
  apiPollMs?: number;
}): Promise<RunningService> {
  const catalog = loadCatalog().filter((entry) => options.symbols.includes(entry.symbol));
  const sim = await ExchangeSimulator.start({ catalog, seed: 7, retryAfterSeconds: 0 });
  onTestFinished(() => sim.stop());
  const dataDir = mkdtempSync(join(tmpdir(), 'nerkh-service-'));
  onTestFinished(() => rmSync(dataDir, { recursive: true, force: true }));
  const service = await startService({
    config: loadConfig({
      NERKH_DATA_DIR: dataDir,
      NERKH_BINANCE_WS_URL: sim.wsBaseUrl,
      NERKH_BINANCE_REST_URL: sim.restBaseUrl,
      NERKH_NOBITEX_URL: sim.nobitexBaseUrl,
      PORT: '0',
      NERKH_METRICS_PORT: '0',
      ...options.env,
    }),
    logger: options.logger,
    role: 'all',
    // The first commit comes as soon as every coin is priced; it waits up to 8 s for that,
    // since a first commit without a coin leaves it out until the next, 10 minutes later.
    tuning: { firstCommitGraceMs: 8000, pollMs: 200, minPollMs: 200 },
    ...(options.apiPollMs === undefined ? {} : { apiPollMs: options.apiPollMs }),
  });
  onTestFinished(() => service.stop());
  // Tests ask for the coins they quote, so the service is ready once a snapshot holds every one of
  // them and the API serves it.
  const complete = await waitFor(
    async () => {
      const snapshot = await service.store.snapshots.latestSnapshot();
      const held = new Set(snapshot?.rates.map((rate) => rate.symbol));
      return options.symbols.every((symbol) => held.has(symbol)) ? snapshot : null;
    },
    10_000,
    `a snapshot of ${options.symbols.join(', ')}`,
  );
  await waitFor(
    async () => {
      const health = await fetch(`${service.url}/v1/health`);
      const body = (await health.json()) as { updated_at?: string | null };
      return health.status === 200 && (body.updated_at ?? '') >= complete.updated_at;
    },
    10_000,
    'the API serving that snapshot',
  );
  return service;
}
