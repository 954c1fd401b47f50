import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { openPostgresStore } from '../../../src/store/postgres/open-postgres-store.ts';
import { createTestDatabase, skipPostgres } from '../../support/postgres.ts';
import { draftAt } from '../snapshot-store-contract.ts';

describe('openPostgresStore', () => {
  it('fails with one line naming the server, never the password, when PostgreSQL is unreachable', async () => {
    const opening = openPostgresStore({
      NERKH_DATABASE_URL: 'postgres://nerkh:s3cret@127.0.0.1:1/nerkh',
      NERKH_DATABASE_POOL_SIZE: 2,
      NERKH_SNAPSHOT_RETENTION: 10,
    });
    await expect(opening).rejects.toThrow(/^PostgreSQL at 127\.0\.0\.1:1\/nerkh: connect ECONNREFUSED/);
    await expect(opening).rejects.not.toThrow(/s3cret/);
  });

  it.skipIf(skipPostgres)('migrates a fresh database on open and serves from it at once', async () => {
    const url = await createTestDatabase();
    const store = await openPostgresStore({
      NERKH_DATABASE_URL: url,
      NERKH_DATABASE_POOL_SIZE: 2,
      NERKH_SNAPSHOT_RETENTION: 10,
    });
    onTestFinished(() => store.close());
    const committed = await store.snapshots.commitSnapshot(draftAt(0));
    expect(await store.snapshots.latestSnapshot()).toEqual(committed);
    expect(await store.keys.apiKeysVersion()).toBe(0);
    expect(await store.keyRequests.listKeyRequests()).toEqual([]);
  });

  it.skipIf(skipPostgres)(
    'holds at most NERKH_DATABASE_POOL_SIZE connections under concurrent reads',
    async () => {
      const url = await createTestDatabase();
      const store = await openPostgresStore({
        NERKH_DATABASE_URL: url,
        NERKH_DATABASE_POOL_SIZE: 3,
        NERKH_SNAPSHOT_RETENTION: 10,
      });
      onTestFinished(() => store.close());
      await store.snapshots.commitSnapshot(draftAt(0));
      await Promise.all(Array.from({ length: 40 }, () => store.snapshots.latestSnapshot()));
      const observer = new pg.Client({ connectionString: url });
      onTestFinished(() => observer.end());
      await observer.connect();
      const { rows } = await observer.query(
        "SELECT count(*)::integer AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'nerkh'",
      );
      expect(rows[0].n).toBeGreaterThanOrEqual(1);
      expect(rows[0].n).toBeLessThanOrEqual(3);
    },
  );
});
