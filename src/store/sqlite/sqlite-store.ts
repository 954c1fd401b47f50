import { join } from 'node:path';
import type { Config } from '../../config.ts';
import type { OpenedStore } from '../types.ts';
import { openSqlite, type SqliteDatabase } from './database.ts';
import { SqliteKeyRequestStore } from './key-request-store.ts';
import { SqliteApiKeyStore } from './key-store.ts';
import { SqliteSnapshotStore } from './snapshot-store.ts';

/** The SQLite store with its connection, for SQLite-specific work (the bench batches writes in one transaction). */
export interface SqliteStore extends OpenedStore {
  db: SqliteDatabase;
}

/**
 * Opens the embedded store, `${NERKH_DATA_DIR}/nerkh.db` (created and migrated on first use), and
 * the stores built on it; `close()` closes the database once they are no longer used.
 */
export function openSqliteStore(
  config: Pick<Config, 'NERKH_DATA_DIR' | 'NERKH_SNAPSHOT_RETENTION'>,
): SqliteStore {
  const file = join(config.NERKH_DATA_DIR, 'nerkh.db');
  const db = openSqlite(file);
  const keys = new SqliteApiKeyStore(db);
  return {
    snapshots: new SqliteSnapshotStore(db, config.NERKH_SNAPSHOT_RETENTION),
    keys,
    keyRequests: new SqliteKeyRequestStore(db),
    location: file,
    db,
    close: async () => {
      await keys.close();
      db.close();
    },
  };
}
