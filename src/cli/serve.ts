import { type Command, Option } from 'commander';
import { loadCatalog } from '../collector/catalog-file.ts';
import { type Pipeline, type PipelineTuning, startPipeline } from '../collector/pipeline.ts';
import { type Config, loadConfig } from '../config.ts';
import { appStoresOf, buildApp, type NerkhApp } from '../http/app.ts';
import { exitOnSignals, listen } from '../http/server.ts';
import { bufferedStdout, createLogger, type Logger } from '../logger.ts';
import { type OpenedStore, openStore, sqliteFileOf } from '../store/open-store.ts';

export const roles = ['all', 'api', 'collector'] as const;
export type Role = (typeof roles)[number];

export interface ServiceOptions {
  config: Config;
  logger: Logger;
  role: Role;
  /** Collector timings (the demo shortens the first commit's grace period). */
  tuning?: PipelineTuning;
}

export interface RunningService {
  /** Base URL the API listens on; null for the collector role. */
  url: string | null;
  store: OpenedStore;
  /** Stops accepting, finishes in-flight requests, stops the collector, closes the store. */
  stop(): Promise<void>;
}

/**
 * Starts the parts of nerkh a role needs (design §7): `all` = collector and API in one process;
 * `api` = API only, serving what a collector elsewhere commits to the same store; `collector` =
 * sources → collector → store only. Whatever started is stopped again if a later part fails.
 */
export async function startService({
  config,
  logger,
  role,
  tuning,
}: ServiceOptions): Promise<RunningService> {
  const catalog = role === 'api' ? null : loadCatalog(config.NERKH_CATALOG);
  const store = openStore(config);
  logger.info({ role, db: sqliteFileOf(config) }, 'store opened');
  let pipeline: Pipeline | null = null;
  let app: NerkhApp | null = null;
  const stop = async () => {
    await app?.close();
    await pipeline?.stop();
    store.close();
  };
  try {
    if (catalog !== null) {
      pipeline = await startPipeline({
        config,
        catalog,
        store: store.snapshots,
        logger,
        ...(tuning ? { tuning } : {}),
      });
    }
    let url: string | null = null;
    if (role !== 'collector') {
      app = await buildApp({
        config,
        logger,
        ...appStoresOf(store),
      });
      url = await listen(app, config.HOST, config.PORT);
    }
    return { url, store, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** `nerkh serve [--role all|api|collector]`: runs until SIGTERM or SIGINT, then stops cleanly (exit 0). */
export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('run the service: collector and HTTP API (or one of them with --role)')
    .addOption(
      new Option(
        '--role <role>',
        'all: collector and API in one process; api: API only; collector: collector only',
      )
        .choices(roles)
        .default('all'),
    )
    .addHelpText(
      'after',
      `
Listens on HOST:PORT (default 127.0.0.1:8080) and keeps its data in NERKH_DATA_DIR (default
./data). Several --role api processes can serve one data directory while one --role collector
process fills it. Stops on SIGTERM or SIGINT after finishing in-flight requests. Every setting
is an environment variable; see README.md "Configuration".`,
    )
    .action(async (options: { role: Role }) => {
      const config = loadConfig();
      const logger = createLogger(config.LOG_LEVEL, bufferedStdout());
      const service = await startService({ config, logger, role: options.role });
      logger.info({ role: options.role, url: service.url, public_url: config.publicUrl }, 'nerkh is running');
      // Startup lines at once, not when the access log fills the first batch.
      logger.flush();
      exitOnSignals(service.stop, { logger });
    });
}
