import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { schemaVersion } from './database.ts';

/** What a store file holds, as `nerkh backup` and `nerkh restore` report it. */
export interface StoreFileSummary {
  schemaVersion: number;
  keys: number;
  snapshots: number;
  bytes: number;
}

/** How far a copy has got, after each step of it. */
export interface CopyProgress {
  totalPages: number;
  remainingPages: number;
}

/**
 * Pages copied per step of the online backup: 10 MiB at SQLite's default 4 KiB page. Each step is
 * a read transaction of its own, so a writer in another process (a server's snapshot, a key issued)
 * is never held up; SQLite restarts the copy if the source changed between steps, which at this
 * step size leaves a short window (https://www.sqlite.org/backup.html).
 */
const pagesPerStep = 2560;

/** The file the store of a data directory lives in (openSqliteStore's name for it). */
export function storeFileOf(dataDir: string): string {
  return join(dataDir, 'nerkh.db');
}

/**
 * Checks that `file` is a whole nerkh SQLite store this release can open: SQLite's
 * `integrity_check` passes, its schema version (`user_version`, set by the migrations in
 * database.ts) is one this release knows, and it has nerkh's tables. Throws the reason otherwise.
 */
export function checkStoreFile(file: string): StoreFileSummary {
  if (!existsSync(file)) throw new Error(`${file} does not exist`);
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new Error(`${file} cannot be opened as SQLite: ${messageOf(error)}`, { cause: error });
  }
  try {
    const problems = readIntegrity(db, file);
    if (problems.length > 0) {
      throw new Error(`${file} fails SQLite's integrity_check: ${problems.slice(0, 3).join('; ')}`);
    }
    const version = db.pragma('user_version', { simple: true }) as number;
    const tables = new Set(
      db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck().all() as string[],
    );
    const missing = ['snapshots', 'api_keys', 'key_requests'].filter((table) => !tables.has(table));
    if (version === 0 || missing.length > 0) {
      throw new Error(
        `${file} is not a nerkh store: ${version === 0 ? 'no schema version' : `no ${missing.join(', ')} table`}`,
      );
    }
    if (version > schemaVersion) {
      throw new Error(
        `${file} is at schema version ${version}, newer than this release knows (${schemaVersion}): restore it with the release that made it, or a later one`,
      );
    }
    return {
      schemaVersion: version,
      keys: db.prepare('SELECT count(*) FROM api_keys').pluck().get() as number,
      snapshots: db.prepare('SELECT count(*) FROM snapshots').pluck().get() as number,
      bytes: statSync(file).size,
    };
  } finally {
    db.close();
  }
}

function readIntegrity(db: Database.Database, file: string): string[] {
  try {
    const rows = db.pragma('integrity_check') as Array<{ integrity_check: string }>;
    return rows.map((row) => row.integrity_check).filter((row) => row !== 'ok');
  } catch (error) {
    // SQLite reads the file's first page only now: a file that is not SQLite at all fails here, and
    // so does one too damaged for integrity_check to list what is wrong.
    const notSqlite = (error as { code?: unknown }).code === 'SQLITE_NOTADB';
    throw new Error(
      `${file} ${notSqlite ? 'is not a SQLite database' : "fails SQLite's integrity_check"}: ${messageOf(error)}`,
      { cause: error },
    );
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Copies the database at `source` to `destination` with SQLite's online backup API, which reads a
 * consistent copy while other processes keep reading and writing the source. The copy is written
 * beside the destination under a temporary name, switched to the rollback journal (one
 * self-contained file, no `-wal` beside it), checked, and only then renamed into place, so an
 * interrupted or failed copy never leaves a partial file under the destination's name.
 */
async function copyDatabase(
  source: string,
  destination: string,
  onProgress: (progress: CopyProgress) => void,
): Promise<StoreFileSummary> {
  const partial = `${destination}.partial-${process.pid}`;
  try {
    // Read-write, though it only reads: the last connection to close folds the WAL back into the
    // file and removes it, which a read-only one cannot do.
    const db = new Database(source, { fileMustExist: true });
    try {
      db.pragma('busy_timeout = 5000');
      await db.backup(partial, {
        progress: (progress) => {
          onProgress(progress);
          return pagesPerStep;
        },
      });
    } finally {
      db.close();
    }
    const copy = new Database(partial);
    try {
      copy.pragma('journal_mode = DELETE');
    } finally {
      copy.close();
    }
    const summary = checkStoreFile(partial);
    renameSync(partial, destination);
    return summary;
  } finally {
    rmSync(partial, { force: true });
  }
}

/**
 * `nerkh backup`: a consistent copy of the store in `dataDir` to `file`, taken while servers run
 * on it. Refuses to replace an existing file unless `force`.
 */
export async function backupStore(
  dataDir: string,
  file: string,
  options: { force: boolean; onProgress: (progress: CopyProgress) => void },
): Promise<StoreFileSummary> {
  const source = storeFileOf(dataDir);
  if (!existsSync(source)) throw new Error(`no SQLite store at ${source}: is NERKH_DATA_DIR right?`);
  if (resolve(file) === resolve(source)) throw new Error(`${file} is the store itself`);
  if (existsSync(file) && !options.force) {
    throw new Error(`${file} already exists: pass --force to replace it`);
  }
  if (!existsSync(dirname(file))) throw new Error(`directory ${dirname(file)} does not exist`);
  return copyDatabase(source, file, options.onProgress);
}

/**
 * `nerkh restore`: checks `file` (checkStoreFile) and copies it in as the store of `dataDir`, which
 * must be empty or absent, so a restore never mixes with or replaces a store in use. Migrations, if
 * the backup is older than this release, run when nerkh next opens the store.
 */
export async function restoreStore(
  file: string,
  dataDir: string,
  onProgress: (progress: CopyProgress) => void,
): Promise<StoreFileSummary> {
  if (existsSync(dataDir)) {
    if (!statSync(dataDir).isDirectory()) throw new Error(`NERKH_DATA_DIR ${dataDir} is not a directory`);
    const entries = readdirSync(dataDir);
    if (entries.length > 0) {
      const shown = entries.slice(0, 3).join(', ') + (entries.length > 3 ? ', …' : '');
      throw new Error(
        `NERKH_DATA_DIR ${dataDir} is not empty (${shown}): restore writes only into an empty data directory; stop nerkh and move it aside first`,
      );
    }
  }
  checkStoreFile(file);
  mkdirSync(dataDir, { recursive: true });
  return copyDatabase(file, storeFileOf(dataDir), onProgress);
}
