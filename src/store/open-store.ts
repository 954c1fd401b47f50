import { type Config, ConfigError } from '../config.ts';
import { openSqliteStore } from './sqlite/sqlite-store.ts';
import type { ApiKeyStore, CollectorStatusStore, KeyRequestStore, SnapshotStore } from './types.ts';

/** Every storage capability, on the one backend the configuration selects. */
export interface OpenedStore {
  snapshots: SnapshotStore & CollectorStatusStore;
  keys: ApiKeyStore;
  keyRequests: KeyRequestStore;
  /** Where the data is kept, for the start-up log: a file path, never a password. */
  location: string;
  /** Releases the backend once nothing uses the stores any more. */
  close(): Promise<void>;
}

/**
 * Opens the store the configuration selects, the one place a backend is chosen: the embedded
 * SQLite file in NERKH_DATA_DIR. NERKH_DATABASE_URL names a PostgreSQL server, which this build
 * cannot use yet: start-up stops with a reason instead of ignoring the setting.
 */
export async function openStore(config: Config): Promise<OpenedStore> {
  if (config.NERKH_DATABASE_URL !== undefined) {
    throw new ConfigError(
      'NERKH_DATABASE_URL is set, but this build of nerkh has no PostgreSQL store yet; unset it to keep the data in SQLite in NERKH_DATA_DIR',
    );
  }
  return openSqliteStore(config);
}
