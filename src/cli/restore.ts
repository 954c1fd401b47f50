import { resolve } from 'node:path';
import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { restoreStore, storeFileOf } from '../store/sqlite/backup.ts';
import { describeStoreFile, postgresRefusal, printProgress } from './backup.ts';
import { terminalSafe } from './terminal-output.ts';

const print = (line: string) => process.stdout.write(`${line}\n`);

/**
 * `nerkh restore FILE` (docs/operations.md#backups): a backup made by `nerkh backup` (or SQLite's
 * own `.backup`) becomes the store of an empty data directory, after it is checked to be a whole
 * nerkh store. Older backups are migrated when nerkh next starts on it, as any store is.
 */
export function registerRestore(program: Command): void {
  program
    .command('restore')
    .description(
      'check FILE is a nerkh SQLite store and copy it into NERKH_DATA_DIR, which must be empty (PostgreSQL: pg_restore, see docs/operations.md#backups)',
    )
    .argument('<file>', 'a backup made by nerkh backup')
    .action(async (file: string) => {
      const config = loadConfig();
      if (config.NERKH_DATABASE_URL !== undefined) throw postgresRefusal('restore');
      const dataDir = resolve(config.NERKH_DATA_DIR);
      const summary = await restoreStore(resolve(file), dataDir, printProgress);
      print(
        terminalSafe(`Restored ${resolve(file)} to ${storeFileOf(dataDir)}: ${describeStoreFile(summary)}.`),
      );
      print(
        terminalSafe(
          `Start nerkh with NERKH_DATA_DIR=${dataDir}; migrations, if any are due, run as it starts.`,
        ),
      );
    });
}
