import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Command, Option } from 'commander';
import { pino } from 'pino';
import { loadCatalog } from '../catalog/catalog-file.ts';
import { loadConfig } from '../config.ts';
import { isUrlTemplate } from '../feeds/json-http-mapping.ts';
import { exitOnSignals } from '../http/server.ts';
import { issueApiKey } from '../keys/issue-key.ts';
import { createLogger } from '../logger.ts';
import { projectRoot } from '../project-root.ts';
import { type RunningService, startService } from '../service.ts';
import { ExchangeSimulator } from '../simulator/exchange-simulator.ts';
import { type Exchange, FAULT_TARGETS } from '../simulator/faults.ts';
import { ABANTETHER_COINS_PATH, RAMZINEX_PAIRS_LIST_PATH } from '../simulator/iran-exchanges.ts';

/** The documents of every market the simulator serves at their exchange's own path. */
const LISTS: readonly string[] = [ABANTETHER_COINS_PATH, RAMZINEX_PAIRS_LIST_PATH];

import { builtInSources } from '../sources/default-sources.ts';
import { readSourcesFile } from '../sources/load-sources.ts';
import type { ConfiguredSource, SourcesSetup } from '../sources/sources-setup.ts';

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

/** The presets shipped in `sources/`, by name. */
const presets = [
  'binance-nobitex',
  'binance-failover',
  'wallex',
  'iran',
  'ramzinex',
  'bitpin',
  'tabdeal',
  'abantether',
] as const;

/**
 * The set-up with every source pointed at the simulator, which speaks each kind's wire format:
 * the exchanges' addresses in a file or preset are replaced, the rest of it is kept as written.
 */
function againstSimulator(setup: SourcesSetup, simulator: ExchangeSimulator): SourcesSetup {
  const pointed = (source: ConfiguredSource): ConfiguredSource => {
    switch (source.kind) {
      case 'binance':
        return {
          ...source,
          url: simulator.wsBaseUrl,
          ...(source.rest_url === undefined ? {} : { rest_url: simulator.restBaseUrl }),
        };
      case 'nobitex':
        return { ...source, url: simulator.nobitexBaseUrl };
      case 'wallex':
        return { ...source, url: simulator.wallexBaseUrl };
      case 'json-http':
        // One URL per market (Bitpin, Tabdeal), or Ramzinex's or Aban Tether's list: the simulator
        // serves their paths as they are.
        return isUrlTemplate(source.url) || LISTS.includes(new URL(source.url).pathname)
          ? { ...source, url: source.url.replace(/^https?:\/\/[^/]+/, simulator.iranExchangesBaseUrl) }
          : { ...source, url: simulator.panelUrl };
    }
  };
  return { ...setup, sources: setup.sources.map(pointed) };
}

/**
 * `nerkh demo` (docs/operations.md#command-line): the whole service against the built-in exchange simulator, on a
 * fresh temporary data directory, with a fresh key, and curl lines that work as printed.
 */
export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description('run the service against a local exchange simulator and print ready-to-run curl lines')
    .option('--sources <file>', 'a sources file to run, its exchanges replaced by the simulator')
    .addOption(
      new Option('--preset <name>', 'a preset from sources/ to run instead of a file')
        .choices(presets)
        .conflicts('sources'),
    )
    .addOption(
      new Option(
        '--geo-block <exchange>',
        'start with this exchange answering HTTP 451, as to a restricted location',
      ).choices(FAULT_TARGETS.filter((target) => target !== 'all')),
    )
    .addHelpText(
      'after',
      `
Starts an exchange simulator (Binance, Nobitex, Wallex, Ramzinex, Bitpin, Tabdeal and a made-up
exchange's JSON document) on a free local port, runs the service (collector and API, like "serve
--role all") against it on HOST:PORT (default 127.0.0.1:8080) with its data in a new temporary
directory that is deleted on exit, issues a demo key, waits for the first snapshot and prints
curl commands to try. Nothing leaves the machine. Ctrl-C stops it. Logs (JSON lines) go to stderr at LOG_LEVEL, default warn
for the demo; coins failing over between sources are logged at warn.

The sources: --sources FILE or --preset NAME (else NERKH_SOURCES_FILE, else the built-in Binance
+ Nobitex set-up), each source's address replaced by the simulator's; a json-http source reads
the simulator's /panel/prices document, so its mapping must fit that document, or, with one URL
per market ({symbol} in it), the simulator's Ramzinex, Bitpin and Tabdeal at the same paths.

Examples:
  npm run demo -- --preset wallex
  npm run demo -- --preset bitpin
  npm run demo -- --preset binance-failover --geo-block binance
  npm run demo -- --sources my-sources.yaml`,
    )
    .action(async (options: { sources?: string; preset?: (typeof presets)[number]; geoBlock?: Exchange }) => {
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
        // The demo's own defaults; any variable the user sets still wins, except the sources'
        // addresses and the data directory, which must point at the simulator and the fresh directory.
        const config = loadConfig({ LOG_LEVEL: 'warn', ...process.env, NERKH_DATA_DIR: dataDir });
        const catalog = loadCatalog(config.NERKH_CATALOG);
        const file = options.preset
          ? join(projectRoot, 'sources', `${options.preset}.yaml`)
          : (options.sources ?? config.NERKH_SOURCES_FILE);
        // A file with mistakes stops the demo before the simulator starts.
        const chosen = file === undefined ? null : readSourcesFile(file, { catalog });
        simulator = await ExchangeSimulator.start({ catalog });
        if (options.geoBlock) simulator.setFault('geo-block', options.geoBlock);
        const sources =
          chosen === null
            ? builtInSources({
                ...config,
                NERKH_BINANCE_WS_URL: simulator.wsBaseUrl,
                NERKH_BINANCE_REST_URL: simulator.restBaseUrl,
                NERKH_NOBITEX_URL: simulator.nobitexBaseUrl,
              })
            : againstSimulator(chosen, simulator);
        // Logs go to stderr so stdout carries only the instructions below.
        const logger = createLogger(config.LOG_LEVEL, pino.destination(2));
        service = await startService({
          config,
          logger,
          role: 'all',
          sources,
          tuning: { firstCommitGraceMs: 3000 },
        });
        const apiUrl = service.url as string;
        const { key, record } = await issueApiKey(service.store.keys, {
          org: 'nerkh demo',
          purpose: 'local demo against the exchange simulator',
        });
        const count = await waitForFirstSnapshot(apiUrl);
        const faultControl = `${simulator.restBaseUrl}/_simulator/fault`;
        const blocked = options.geoBlock
          ? [
              '',
              `${options.geoBlock} answers HTTP 451 (geo-block); its coins are served by the next source of their routes. Lift it, and`,
              `its coins return once it has served again for ${sources.returnAfterMs / 1000} s (return_after_seconds):`,
              `  curl -s -X POST -d '{"fault":"none","target":"${options.geoBlock}"}' ${faultControl}`,
            ]
          : [];
        const lines = [
          `nerkh demo is running: ${count} currencies from the built-in exchange simulator.`,
          `Sources: ${sources.origin} (${sources.sources.map((source) => source.name).join(', ')}), at the simulator.`,
          `Data: temporary directory ${dataDir} (deleted on exit). API: ${apiUrl}/v1`,
          `Demo key ${record.id} (${config.NERKH_RATE_LIMIT} requests per ${config.NERKH_RATE_WINDOW_SECONDS} s). Snapshots every ${config.NERKH_REFRESH_SECONDS} s.`,
          '',
          'Try:',
          `  curl -s -H 'X-API-Key: ${key}' ${apiUrl}/v1/rates`,
          `  curl -s -H 'X-API-Key: ${key}' '${apiUrl}/v1/rates?symbol=BTC'`,
          `  curl -s ${apiUrl}/v1/health`,
          `  curl -s -i ${apiUrl}/v1/rates    # no key: 401, application/problem+json`,
          ...(service.metricsUrl === null ? [] : [`  curl -s ${service.metricsUrl}    # Prometheus metrics`]),
          ...blocked,
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
