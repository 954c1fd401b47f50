import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { terminalSafe } from './terminal-output.ts';

const print = (line: string) => process.stdout.write(`${line}\n`);

/**
 * `nerkh migrate`: applies pending PostgreSQL schema migrations, as a deploy step before new
 * instances start (they also apply them on start, under the same lock, so running it is optional
 * and running it twice is harmless). The embedded SQLite store migrates itself when opened.
 */
export function registerMigrate(program: Command): void {
  program
    .command('migrate')
    .description('apply pending schema migrations to the PostgreSQL database at NERKH_DATABASE_URL')
    .action(async () => {
      const url = loadConfig().NERKH_DATABASE_URL;
      if (url === undefined) {
        throw new Error(
          'NERKH_DATABASE_URL is not set: migrate applies the PostgreSQL schema (the SQLite store in NERKH_DATA_DIR migrates itself)',
        );
      }
      // Loaded here, not at the top: every other command would pay the driver's load time.
      const [{ default: pg }, { migrate }, { clientConfigOf, reasonOf, targetOf }] = await Promise.all([
        import('pg'),
        import('../store/postgres/migrate.ts'),
        import('../store/postgres/pool.ts'),
      ]);
      const target = terminalSafe(targetOf(url));
      const client = new pg.Client(clientConfigOf(url));
      // A connection that breaks while idle emits 'error'; the query in flight reports it instead.
      client.on('error', () => {});
      try {
        await client.connect();
        const run = await migrate(client);
        for (const migration of run.applied) {
          print(`Applied migration ${migration.version}: ${migration.name}.`);
        }
        print(
          run.applied.length === 0
            ? `Nothing to apply: PostgreSQL at ${target} is at schema version ${run.version}.`
            : `PostgreSQL at ${target} is now at schema version ${run.version}.`,
        );
      } catch (error) {
        throw new Error(`cannot migrate PostgreSQL at ${target}: ${reasonOf(error)}`, { cause: error });
      } finally {
        await client.end().catch(() => {});
      }
    });
}
