import { resolve } from 'node:path';
import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import {
  backupStore,
  type CopyProgress,
  type StoreFileSummary,
  storeFileOf,
} from '../store/sqlite/backup.ts';
import { terminalSafe } from './terminal-output.ts';

const print = (line: string) => process.stdout.write(`${line}\n`);

/** "3 keys, 120 snapshots, schema version 8, 5.2 MB": what a store file holds. */
export function describeStoreFile(summary: StoreFileSummary): string {
  const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;
  return `${plural(summary.keys, 'key')}, ${plural(summary.snapshots, 'snapshot')}, schema version ${summary.schemaVersion}, ${(summary.bytes / 1e6).toFixed(1)} MB`;
}

/** A line after each step of a copy that takes more than one (a store over 10 MiB), so a long copy shows it moves. */
export function printProgress(progress: CopyProgress): void {
  const copied = progress.totalPages - progress.remainingPages;
  if (copied === 0 || progress.remainingPages === 0) return;
  print(
    `Copied ${copied} of ${progress.totalPages} pages (${Math.floor((copied / progress.totalPages) * 100)} %)…`,
  );
}

/** The one-line refusal both commands give on PostgreSQL, which they do not copy. */
export function postgresRefusal(command: 'backup' | 'restore'): Error {
  const tool = command === 'backup' ? 'pg_dump' : 'pg_restore';
  return new Error(
    `NERKH_DATABASE_URL is set: nerkh ${command} copies the SQLite store of NERKH_DATA_DIR; for PostgreSQL use ${tool} as docs/operations.md#backups shows`,
  );
}

/**
 * `nerkh backup FILE` (docs/operations.md#backups): a consistent copy of the SQLite store while
 * servers keep serving from it and writing to it.
 */
export function registerBackup(program: Command): void {
  program
    .command('backup')
    .description(
      'copy the SQLite store in NERKH_DATA_DIR to FILE, consistently, while servers run on it (PostgreSQL: pg_dump, see docs/operations.md#backups)',
    )
    .argument('<file>', 'the backup file to write (refused if it exists, unless --force)')
    .option('--force', 'replace FILE if it exists')
    .action(async (file: string, options: { force?: boolean }) => {
      const config = loadConfig();
      if (config.NERKH_DATABASE_URL !== undefined) throw postgresRefusal('backup');
      const target = resolve(file);
      const summary = await backupStore(config.NERKH_DATA_DIR, target, {
        force: options.force === true,
        onProgress: printProgress,
      });
      print(
        terminalSafe(
          `Backed up ${storeFileOf(config.NERKH_DATA_DIR)} to ${target}: ${describeStoreFile(summary)}; integrity_check ok.`,
        ),
      );
    });
}
