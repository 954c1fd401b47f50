import type { Config } from '../../config.ts';
import type { OpenedStore } from '../types.ts';
import { PostgresChangeFeed } from './change-feed.ts';
import { PostgresCollectorLease } from './collector-lease.ts';
import { PostgresKeyRequestStore } from './key-request-store.ts';
import { PostgresApiKeyStore } from './key-store.ts';
import { migrate } from './migrate.ts';
import { openPool, type PostgresSettings, reasonOf, targetOf } from './pool.ts';
import { PostgresSnapshotStore } from './snapshot-store.ts';

/**
 * Opens the PostgreSQL store at NERKH_DATABASE_URL: a bounded pool, the schema brought up to date
 * first (under the migrators' lock, so instances starting together never race), and the stores
 * on the pool. Fails with one line naming the server (never the password) when it cannot.
 */
export async function openPostgresStore(
  config: PostgresSettings & Pick<Config, 'NERKH_SNAPSHOT_RETENTION'>,
): Promise<OpenedStore> {
  const pool = openPool(config);
  try {
    const client = await pool.connect();
    try {
      await migrate(client);
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end();
    throw new Error(`PostgreSQL at ${targetOf(config.NERKH_DATABASE_URL)}: ${reasonOf(error)}`, {
      cause: error,
    });
  }
  let closed: Promise<void> | undefined;
  return {
    snapshots: new PostgresSnapshotStore(pool, config.NERKH_SNAPSHOT_RETENTION),
    keys: new PostgresApiKeyStore(pool),
    keyRequests: new PostgresKeyRequestStore(pool),
    collectorLease: new PostgresCollectorLease(pool, config.NERKH_SNAPSHOT_RETENTION),
    async openChangeFeed(logger) {
      const feed = new PostgresChangeFeed({ url: config.NERKH_DATABASE_URL, logger });
      await feed.start();
      return feed;
    },
    location: `postgres://${targetOf(config.NERKH_DATABASE_URL)}`,
    close: () => {
      closed ??= pool.end();
      return closed;
    },
  };
}
