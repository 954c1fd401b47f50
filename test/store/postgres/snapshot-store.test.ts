import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { openPostgresStore } from '../../../src/store/postgres/open-postgres-store.ts';
import { openFreshPostgresStore } from '../../support/fresh-postgres-store.ts';
import { createTestDatabase, skipPostgres } from '../../support/postgres.ts';
import { describeSnapshotStoreContract, draftAt } from '../snapshot-store-contract.ts';

describe.skipIf(skipPostgres)('PostgreSQL', () => {
  describeSnapshotStoreContract('PostgresSnapshotStore', openFreshPostgresStore);
});

/** A store on `url` as one nerkh process opens it, closed when the test ends. */
async function open(url: string, retention: number) {
  const store = await openPostgresStore({
    NERKH_DATABASE_URL: url,
    NERKH_DATABASE_POOL_SIZE: 2,
    NERKH_SNAPSHOT_RETENTION: retention,
  });
  onTestFinished(() => store.close());
  return store;
}

/** A plain connection to look at the rows, as an operator with psql would. */
async function psql(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  onTestFinished(() => client.end());
  await client.connect();
  return client;
}

async function storedIds(client: pg.Client): Promise<number[]> {
  const { rows } = await client.query<{ id: string }>('SELECT id FROM snapshots ORDER BY id');
  return rows.map((row) => Number(row.id));
}

describe.skipIf(skipPostgres)('PostgresSnapshotStore', () => {
  it('prunes beyond the retention bound in the same commit, keeping the newest', async () => {
    const url = await createTestDatabase();
    const { snapshots } = await open(url, 3);
    for (let minute = 0; minute < 7; minute++) await snapshots.commitSnapshot(draftAt(minute));
    const client = await psql(url);
    expect(await storedIds(client)).toEqual([5, 6, 7]);
    // Their price points go with them: two coins in each of the three kept.
    const { rows } = await client.query<{ snapshot_id: string }>(
      'SELECT snapshot_id FROM price_points ORDER BY 1',
    );
    expect(rows.map((row) => Number(row.snapshot_id))).toEqual([5, 5, 6, 6, 7, 7]);
    expect(await snapshots.latestSnapshot()).toEqual({ id: 7, ...draftAt(6) });
  });

  it('keeps the newest `retention` snapshots when ids have gaps (rolled-back inserts use ids too)', async () => {
    const url = await createTestDatabase();
    const { snapshots } = await open(url, 3);
    const client = await psql(url);
    await snapshots.commitSnapshot(draftAt(0));
    await snapshots.commitSnapshot(draftAt(1));
    await client.query('BEGIN');
    for (let i = 0; i < 10; i++) {
      await client.query(`INSERT INTO snapshots (updated_at, source, rates) VALUES (now(), 'binance', '[]')`);
    }
    await client.query('ROLLBACK');
    const afterGap = await snapshots.commitSnapshot(draftAt(2));
    expect(afterGap.id).toBe(13);
    expect(await storedIds(client)).toEqual([1, 2, 13]);
    await snapshots.commitSnapshot(draftAt(3));
    expect(await storedIds(client)).toEqual([2, 13, 14]);
    expect(await snapshots.latestSnapshotId()).toBe(14);
  });

  it('serves the last committed snapshot and health report after a restart, and keeps numbering up', async () => {
    const url = await createTestDatabase();
    const first = await open(url, 2);
    for (let minute = 0; minute < 4; minute++) await first.snapshots.commitSnapshot(draftAt(minute));
    const status = { reported_at: '2026-03-01T10:04:00.000Z', refresh_seconds: 600, sources: [] };
    await first.snapshots.putCollectorStatus(status);
    await first.close();

    const reopened = await open(url, 2);
    expect(await reopened.snapshots.latestSnapshot()).toEqual({ id: 4, ...draftAt(3) });
    expect(await reopened.snapshots.latestSnapshotId()).toBe(4);
    expect(await reopened.snapshots.getCollectorStatus()).toEqual(status);
    expect((await reopened.snapshots.commitSnapshot(draftAt(9))).id).toBe(5);
  });

  it('lets another instance see each commit as soon as it returns', async () => {
    const url = await createTestDatabase();
    const writer = await open(url, 10);
    const reader = await open(url, 10);
    expect(await reader.snapshots.latestSnapshotId()).toBe(0);
    const committed = await writer.snapshots.commitSnapshot(draftAt(1));
    expect(await reader.snapshots.latestSnapshotId()).toBe(committed.id);
    expect(await reader.snapshots.latestSnapshot()).toEqual(committed);
  });
});
