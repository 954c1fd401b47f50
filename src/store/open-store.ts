import { join } from 'node:path';
import type { Config } from '../config.ts';
import { openSqlite, type SqliteDatabase } from './sqlite/database.ts';
import { SqliteKeyRequestStore } from './sqlite/key-request-store.ts';
import { SqliteApiKeyStore } from './sqlite/key-store.ts';
import { SqliteSnapshotStore } from './sqlite/snapshot-store.ts';
import type { ApiKeyStore, CollectorStatusStore, KeyRequestStore, SnapshotStore } from './types.ts';

export interface OpenedStore {
  snapshots: SnapshotStore & CollectorStatusStore;
  keys: ApiKeyStore;
  keyRequests: KeyRequestStore;
  db: SqliteDatabase;
  close(): void;
}

/** Path of the embedded database inside `NERKH_DATA_DIR`. */
export function sqliteFileOf(config: Pick<Config, 'NERKH_DATA_DIR'>): string {
  return join(config.NERKH_DATA_DIR, 'nerkh.db');
}

/**
 * Opens the embedded SQLite store (`${NERKH_DATA_DIR}/nerkh.db`, created and migrated on first
 * use) and the stores built on it; `close()` closes the database once they are no longer used.
 */
export function openStore(config: Config): OpenedStore {
  const db = openSqlite(sqliteFileOf(config));
  return {
    snapshots: new SqliteSnapshotStore(db, config.NERKH_SNAPSHOT_RETENTION),
    keys: new SqliteApiKeyStore(db),
    keyRequests: new SqliteKeyRequestStore(db),
    db,
    close: () => db.close(),
  };
}
