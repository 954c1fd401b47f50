import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { startService } from '../service.ts';

/**
 * `nerkh collect`: the collector alone (sources → collector → store), for a machine that only
 * gathers rates while API instances serve them from the same store.
 */
export function registerCollect(program: Command): void {
  program
    .command('collect')
    .description('run the collector alone: follow the sources and commit a snapshot on schedule')
    .addHelpText(
      'after',
      `
Follows the sources NERKH_SOURCES_FILE names (without one: Binance <pair>@ticker for every
catalog coin and Nobitex for tether in toman; try a file first with "nerkh sources check"), then
commits one snapshot every NERKH_REFRESH_SECONDS (default 600) to the store in NERKH_DATA_DIR
(default ./data). Logs connection changes, coins failing over between sources, and each commit
as JSON lines. Stops cleanly on SIGINT or SIGTERM.

Settings (environment): NERKH_DATA_DIR, NERKH_REFRESH_SECONDS, NERKH_CATALOG, NERKH_SOURCES_FILE
(or NERKH_BINANCE_WS_URL, NERKH_BINANCE_REST_URL, NERKH_NOBITEX_URL, NERKH_NOBITEX_POLL_SECONDS),
NERKH_MARKUP_PCT, NERKH_MARKUP_OVERRIDES, NERKH_MAX_JUMP_PCT, NERKH_METRICS_PORT, NERKH_METRICS_HOST,
LOG_LEVEL.`,
    )
    .action(async () => {
      const config = loadConfig();
      const logger = createLogger(config.LOG_LEVEL);
      const service = await startService({ config, logger, role: 'collector' });
      const signal = await new Promise<NodeJS.Signals>((resolve) => {
        process.once('SIGINT', () => resolve('SIGINT'));
        process.once('SIGTERM', () => resolve('SIGTERM'));
      });
      logger.info({ signal }, 'stopping collector');
      await service.stop();
      logger.info('collector stopped');
    });
}
