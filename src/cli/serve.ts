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
others stand by to take over. On SIGTERM or SIGINT /readyz answers 503 at once, the API keeps
serving for NERKH_DRAIN_SECONDS (10 s; a second signal ends it), then in-flight requests finish.
Every setting is an environment variable; see docs/operations.md "Configuration".`,
    )
    .action(async (options: { role: Role }) => {
      const config = loadConfig();
      const logger = createLogger(config.LOG_LEVEL, bufferedStdout());
      const service = await startService({ config, logger, role: options.role });
      // Before the line that says it runs: a supervisor that signals as soon as it reads it must
      // find the handlers in place, not Node's default of dying at once.
      exitOnSignals(service.stop, { logger, drain: service.drain });
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
    });
}
