import { type Command, Option } from 'commander';
import { loadConfig } from '../config.ts';
import { exitOnSignals } from '../http/server.ts';
import { bufferedStdout, createLogger } from '../logger.ts';
import { type Role, roles, startService } from '../service.ts';

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
process fills it. With NERKH_DATABASE_URL (and NERKH_REDIS_URL) any number of processes of any
role share one PostgreSQL (and one rate limit); of those that run a collector, one leads and the
others stand by to take over. Stops on SIGTERM or SIGINT after finishing in-flight requests.
Every setting is an environment variable; see docs/operations.md "Configuration".`,
    )
    .action(async (options: { role: Role }) => {
      const config = loadConfig();
      const logger = createLogger(config.LOG_LEVEL, bufferedStdout());
      const service = await startService({ config, logger, role: options.role });
      logger.info(
        {
          role: options.role,
          url: service.url,
          public_url: config.publicUrl,
          metrics_url: service.metricsUrl,
        },
        'nerkh is running',
      );
      // Startup lines at once, not when the access log fills the first batch.
      logger.flush();
      exitOnSignals(service.stop, { logger });
    });
}
