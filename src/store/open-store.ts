import type { Config } from '../config.ts';
import { openSqliteStore } from './sqlite/sqlite-store.ts';
import type { OpenedStore } from './types.ts';

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
