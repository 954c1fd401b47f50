import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqlite, type SqliteDatabase } from '../../../src/store/sqlite/database.ts';
import { SqliteSnapshotStore } from '../../../src/store/sqlite/snapshot-store.ts';
import { openTempSqliteStore } from '../../support/temp-sqlite-store.ts';
import { describeSnapshotStoreContract, draftAt } from '../snapshot-store-contract.ts';

describeSnapshotStoreContract('SqliteSnapshotStore', openTempSqliteStore);

describe('SqliteSnapshotStore on a file', () => {
  let dataDir: string;
  const open: SqliteDatabase[] = [];
  const openDb = () => {
    const handle = openSqlite(join(dataDir, 'nerkh.db'));
    open.push(handle);
    return handle;
  };
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'nerkh-sqlite-'));
  });
  afterEach(() => {
    for (const handle of open.splice(0)) if (handle.open) handle.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('prunes beyond the retention bound in the same commit, keeping the newest', async () => {
    const handle = openDb();
    const store = new SqliteSnapshotStore(handle, 3);
    for (let minute = 0; minute < 7; minute++) await store.commitSnapshot(draftAt(minute));
    const ids = handle.prepare('SELECT id FROM snapshots ORDER BY id').pluck().all();
    expect(ids).toEqual([5, 6, 7]);
    // Their price points go with them: two coins in each of the three kept.
    const points = handle.prepare('SELECT DISTINCT snapshot_id FROM price_points ORDER BY 1').pluck().all();
    expect(points).toEqual([5, 6, 7]);
    expect(handle.prepare('SELECT count(*) FROM price_points').pluck().get()).toBe(6);
    expect(await store.latestSnapshot()).toEqual({ id: 7, ...draftAt(6) });
  });

  it('serves the last committed snapshot and health report after a restart, and keeps numbering up', async () => {
    const first = new SqliteSnapshotStore(openDb(), 2);
    for (let minute = 0; minute < 4; minute++) await first.commitSnapshot(draftAt(minute));
    const status = { reported_at: '2026-03-01T10:04:00.000Z', refresh_seconds: 600, sources: [] };
    await first.putCollectorStatus(status);
    open[0]?.close();

    const reopened = new SqliteSnapshotStore(openDb(), 2);
    expect(await reopened.latestSnapshot()).toEqual({ id: 4, ...draftAt(3) });
    expect(await reopened.latestSnapshotId()).toBe(4);
    expect(await reopened.getCollectorStatus()).toEqual(status);
    expect((await reopened.commitSnapshot(draftAt(9))).id).toBe(5);
  });

  it('serves the snapshots of a database written before the source label as binance+nobitex, the only set-up there was', async () => {
    // The snapshot tables as the first three migrations left them, with a snapshot in them.
    const old = new Database(join(dataDir, 'nerkh.db'));
    old.exec(`CREATE TABLE snapshots (
      id INTEGER PRIMARY KEY AUTOINCREMENT, updated_at TEXT NOT NULL, usdt_irt INTEGER, rates TEXT NOT NULL
    );
    CREATE TABLE collector_status (id INTEGER PRIMARY KEY CHECK (id = 1), report TEXT NOT NULL);`);
    const { source: _source, ...draft } = draftAt(1);
    old
      .prepare('INSERT INTO snapshots (updated_at, usdt_irt, rates) VALUES (?, ?, ?)')
      .run(draft.updated_at, draft.usdt_irt, JSON.stringify(draft.rates));
    old.pragma('user_version = 3');
    old.close();

    const store = new SqliteSnapshotStore(openDb(), 10);
    expect(await store.latestSnapshot()).toEqual({ id: 1, ...draftAt(1, 105_299, 'binance+nobitex') });
    await store.commitSnapshot(draftAt(2, 105_299, 'nobitex+wallex'));
    expect((await store.latestSnapshot())?.source).toBe('nobitex+wallex');
  });

  it("copies the prices of snapshots stored before the price points into the charts' history", async () => {
    const old = openDb();
    const store = new SqliteSnapshotStore(old, 10);
    await store.commitSnapshot(draftAt(1));
    // As migration 4 left the database: no price points yet (nor the later tables).
    old.exec('DROP TABLE price_points; DROP TABLE api_key_usage; DROP TABLE price_acceptances');
    old.pragma('user_version = 4');
    old.close();

    const upgraded = new SqliteSnapshotStore(openDb(), 10);
    const range = { from: draftAt(0).updated_at, to: draftAt(9).updated_at, maxPoints: 100 };
    expect(await upgraded.priceHistory('BTC', range)).toEqual([
      { at: draftAt(1).updated_at, sell_usdt: 64_001.01, sell_irt: Math.round(64_001.01 * 105_299) },
    ]);
  });

  it('lets a second connection (an API instance) see each commit as soon as it returns', async () => {
    const writer = new SqliteSnapshotStore(openDb(), 10);
    const reader = new SqliteSnapshotStore(openDb(), 10);
    expect(await reader.latestSnapshotId()).toBe(0);
    const committed = await writer.commitSnapshot(draftAt(1));
    expect(await reader.latestSnapshot()).toEqual(committed);
  });
});
