import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { loadCatalog } from '../../src/collector/catalog-file.ts';
import { loadConfig } from '../../src/config.ts';
import type { Logger } from '../../src/logger.ts';
import { type RunningService, startService } from '../../src/service.ts';
import { ExchangeSimulator } from '../../src/simulator/exchange-simulator.ts';
import { waitFor } from './wait.ts';

/**
 * The whole service (role `all`, SQLite in a temporary directory, a metrics listener on a free
 * port) against the exchange simulator quoting `symbols`, its first snapshot committed; everything
 * is stopped and deleted when the test ends.
 */
export async function startSimulatedService(options: {
  symbols: readonly string[];
  logger: Logger;
  env?: Record<string, string>;
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
    tuning: { firstCommitGraceMs: 300, pollMs: 200, minPollMs: 200 },
  });
  onTestFinished(() => service.stop());
  await waitFor(
    async () => (await fetch(`${service.url}/v1/health`)).status === 200,
    10_000,
    'a first snapshot',
  );
  return service;
}
