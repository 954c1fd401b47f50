import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { pino } from 'pino';
import { loadCatalog } from '../collector/catalog-file.ts';
import { loadConfig } from '../config.ts';
import { exitOnSignals } from '../http/server.ts';
import { issueApiKey } from '../keys/issue-key.ts';
import { createLogger } from '../logger.ts';
import { type RunningService, startService } from '../service.ts';
import { ExchangeSimulator } from '../simulator/exchange-simulator.ts';

/** How long the demo waits for the first snapshot before giving up. */
const firstSnapshotTimeoutMs = 30_000;

async function waitForFirstSnapshot(apiUrl: string): Promise<number> {
  const deadline = Date.now() + firstSnapshotTimeoutMs;
  while (Date.now() < deadline) {
    // Health, not rates: polling it spends none of the demo key's quota.
    const response = await fetch(`${apiUrl}/v1/health`).catch(() => null);
    const body = (await response?.json().catch(() => null)) as { count?: number | null } | null;
    if (typeof body?.count === 'number' && body.count > 0) return body.count;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(
    `no snapshot within ${firstSnapshotTimeoutMs / 1000} s; run with LOG_LEVEL=info to see why`,
  );
}

/**
 * `nerkh demo` (design §6): the whole service against the built-in exchange simulator, on a
 * fresh temporary data directory, with a fresh key, and curl lines that work as printed.
 */
export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description('run the service against a local exchange simulator and print ready-to-run curl lines')
    .addHelpText(
      'after',
      `
Starts a Binance- and Nobitex-compatible simulator on a free local port, runs the service
(collector and API, like "serve --role all") against it on HOST:PORT (default 127.0.0.1:8080)
with its data in a new temporary directory that is deleted on exit, issues a demo key, waits for
the first snapshot and prints curl commands to try. Nothing leaves the machine. Ctrl-C stops it.
Logs (JSON lines) go to stderr at LOG_LEVEL, default warn for the demo.`,
    )
    .action(async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'nerkh-demo-'));
      const removeDataDir = () => rmSync(dataDir, { recursive: true, force: true });
      let simulator: ExchangeSimulator | null = null;
      let service: RunningService | null = null;
      const stopAll = async () => {
        await service?.stop();
        await simulator?.stop();
        removeDataDir();
      };
      try {
        // The demo's own defaults; any variable the user sets still wins, except the upstream
        // URLs and data directory, which must point at the simulator and the fresh directory.
        const base = loadConfig({ LOG_LEVEL: 'warn', ...process.env });
        simulator = await ExchangeSimulator.start({ catalog: loadCatalog(base.NERKH_CATALOG) });
        const config = loadConfig({
          LOG_LEVEL: 'warn',
          ...process.env,
          NERKH_DATA_DIR: dataDir,
          NERKH_BINANCE_WS_URL: simulator.wsBaseUrl,
          NERKH_BINANCE_REST_URL: simulator.restBaseUrl,
          NERKH_NOBITEX_URL: simulator.nobitexBaseUrl,
        });
        // Logs go to stderr so stdout carries only the instructions below.
        const logger = createLogger(config.LOG_LEVEL, pino.destination(2));
        service = await startService({ config, logger, role: 'all', tuning: { firstCommitGraceMs: 3000 } });
        const apiUrl = service.url as string;
        const { key, record } = await issueApiKey(service.store.keys, {
          org: 'nerkh demo',
          purpose: 'local demo against the exchange simulator',
        });
        const count = await waitForFirstSnapshot(apiUrl);
        const lines = [
          `nerkh demo is running: ${count} currencies from the built-in exchange simulator.`,
          `Data: temporary directory ${dataDir} (deleted on exit). API: ${apiUrl}/v1`,
          `Demo key ${record.id} (${config.NERKH_RATE_LIMIT} requests per ${config.NERKH_RATE_WINDOW_SECONDS} s). Snapshots every ${config.NERKH_REFRESH_SECONDS} s.`,
          '',
          'Try:',
          `  curl -s -H 'X-API-Key: ${key}' ${apiUrl}/v1/rates`,
          `  curl -s -H 'X-API-Key: ${key}' '${apiUrl}/v1/rates?symbol=BTC'`,
          `  curl -s ${apiUrl}/v1/health`,
          `  curl -s -i ${apiUrl}/v1/rates    # no key: 401, application/problem+json`,
          '',
          'Press Ctrl-C to stop.',
        ];
        process.stdout.write(`${lines.join('\n')}\n`);
        exitOnSignals(stopAll, { logger });
      } catch (error) {
        await stopAll().catch(() => {});
        throw error;
      }
    });
}
