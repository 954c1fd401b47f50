import { openPostgresStore } from '../../src/store/postgres/open-postgres-store.ts';
import type { OpenedStore } from '../../src/store/types.ts';
import { createTestDatabase } from './postgres.ts';

/** The PostgreSQL store on a new database of its own, dropped when the current test ends. */
export async function openFreshPostgresStore(): Promise<OpenedStore> {
  return openPostgresStore({
    NERKH_DATABASE_URL: await createTestDatabase(),
    NERKH_DATABASE_POOL_SIZE: 4,
    NERKH_SNAPSHOT_RETENTION: 1000,
  });
}
