import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { openSqliteStore } from './sqlite/sqlite-store.ts';
import type {
  ApiKeyStore,
  ChangeFeed,
  CollectorLease,
  CollectorStatusStore,
  KeyRequestStore,
  SnapshotStore,
} from './types.ts';

/** Every storage capability, on the one backend the configuration selects. */
export interface OpenedStore {
  snapshots: SnapshotStore & CollectorStatusStore;
  keys: ApiKeyStore;
  keyRequests: KeyRequestStore;
  /**
   * The lease electing the one collector that commits, when several instances may run one on this
   * store (PostgreSQL). Absent for SQLite: one process owns the file, and its collector always leads.
   */
  collectorLease?: CollectorLease;
  /**
   * Opens a feed of the changes any process commits, on a connection of its own (PostgreSQL
   * LISTEN/NOTIFY); the caller closes it. Absent for SQLite, whose readers learn of changes by polling.
   */
  openChangeFeed?(logger: Logger): Promise<ChangeFeed>;
  /** Where the data is kept, for the start-up log: a file path, never a password. */
  location: string;
  /** Releases the backend once nothing uses the stores any more. */
  close(): Promise<void>;
}

/**
 * Opens the store the configuration selects, the one place a backend is chosen: PostgreSQL when
 * NERKH_DATABASE_URL is set (shared by any number of instances), else the embedded SQLite file in
 * NERKH_DATA_DIR. The PostgreSQL driver is loaded only then, so the embedded default never pays
 * its load time.
 */
export async function openStore(config: Config): Promise<OpenedStore> {
  if (config.NERKH_DATABASE_URL !== undefined) {
    const { openPostgresStore } = await import('./postgres/open-postgres-store.ts');
    return openPostgresStore({ ...config, NERKH_DATABASE_URL: config.NERKH_DATABASE_URL });
  }
  return openSqliteStore(config);
}
