import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { openPostgresStore } from '../../../src/store/postgres/open-postgres-store.ts';
import { StaleTermError } from '../../../src/store/stale-term-error.ts';
import type { CollectorLease, OpenedStore } from '../../../src/store/types.ts';
import { createTestDatabase, skipPostgres } from '../../support/postgres.ts';
import { sleep } from '../../support/wait.ts';
import { draftAt } from '../snapshot-store-contract.ts';

/** One instance's view of a shared database: its own pool, closed when the test ends. */
async function instanceOn(url: string): Promise<OpenedStore & { collectorLease: CollectorLease }> {
  const store = await openPostgresStore({
    NERKH_DATABASE_URL: url,
    NERKH_DATABASE_POOL_SIZE: 4,
    NERKH_SNAPSHOT_RETENTION: 100,
  });
  onTestFinished(() => store.close());
  const { collectorLease } = store;
  if (collectorLease === undefined) throw new Error('the PostgreSQL store has a collector lease');
  return { ...store, collectorLease };
}

const status = (at: string) => ({ reported_at: at, refresh_seconds: 600, sources: [] });

describe.skipIf(skipPostgres)('PostgresCollectorLease', () => {
  it('is taken by the first claimant, renewed under the same term, and refused to others while it lasts', async () => {
    const url = await createTestDatabase();
    const a = await instanceOn(url);
    const b = await instanceOn(url);
    expect(await a.collectorLease.leader()).toBeNull();

    const first = await a.collectorLease.claim('a:1', null, 10_000);
    expect(first).toMatchObject({ held: true, leader: { instance: 'a:1', term: 1, live: true } });
    expect(await b.collectorLease.claim('b:2', null, 10_000)).toMatchObject({
      held: false,
      leader: { instance: 'a:1', term: 1, live: true },
    });
    const renewed = await a.collectorLease.claim('a:1', 1, 10_000);
    expect(renewed).toMatchObject({
      held: true,
      leader: { instance: 'a:1', term: 1, since: first.leader.since },
    });
    expect(Date.parse(renewed.leader.expiresAt)).toBeGreaterThanOrEqual(Date.parse(first.leader.expiresAt));
    expect(await b.collectorLease.leader()).toMatchObject({ instance: 'a:1', term: 1, live: true });
  });

  it('passes to a standby under the next term once it runs out, and the deposed leader cannot renew it', async () => {
    const url = await createTestDatabase();
    const a = await instanceOn(url);
    const b = await instanceOn(url);
    await a.collectorLease.claim('a:1', null, 300);
    await sleep(400);
    expect(await b.collectorLease.leader()).toMatchObject({ instance: 'a:1', term: 1, live: false });
    expect(await b.collectorLease.claim('b:2', null, 10_000)).toMatchObject({
      held: true,
      leader: { instance: 'b:2', term: 2 },
    });
    expect(await a.collectorLease.claim('a:1', 1, 10_000)).toMatchObject({
      held: false,
      leader: { instance: 'b:2', term: 2, live: true },
    });
  });

  it('refuses a deposed leader’s late commit and health report, and keeps its successor’s', async () => {
    const url = await createTestDatabase();
    const a = await instanceOn(url);
    const b = await instanceOn(url);
    await a.collectorLease.claim('a:1', null, 200);
    const deposed = a.collectorLease.storeFor(1);
    const committed = await deposed.commitSnapshot(draftAt(0));
    await deposed.putCollectorStatus(status('2026-03-01T10:00:00.000Z'));

    await sleep(300);
    await b.collectorLease.claim('b:2', null, 10_000);
    const successor = b.collectorLease.storeFor(2);
    const next = await successor.commitSnapshot(draftAt(1));
    await successor.putCollectorStatus(status('2026-03-01T10:01:00.000Z'));

    // The old leader wakes up (it was paused, or cut off) and writes what it had in hand.
    await expect(deposed.commitSnapshot(draftAt(2))).rejects.toThrow(StaleTermError);
    await expect(deposed.putCollectorStatus(status('2026-03-01T10:02:00.000Z'))).rejects.toThrow(
      StaleTermError,
    );
    expect(await b.snapshots.latestSnapshot()).toEqual(next);
    expect(await b.snapshots.latestSnapshotId()).toBe(committed.id + 1);
    expect(await b.snapshots.getCollectorStatus()).toEqual(status('2026-03-01T10:01:00.000Z'));
  });

  it('refuses a commit that was waiting on a takeover in progress once the takeover commits', async () => {
    const url = await createTestDatabase();
    const a = await instanceOn(url);
    await a.collectorLease.claim('a:1', null, 60_000);
    const takeover = new pg.Client({ connectionString: url });
    onTestFinished(() => takeover.end());
    await takeover.connect();
    // A standby's takeover, caught between its UPDATE and its COMMIT.
    await takeover.query('BEGIN');
    await takeover.query("UPDATE collector_lease SET term = term + 1, holder = 'b:2' WHERE id = 1");
    const late = a.collectorLease.storeFor(1).commitSnapshot(draftAt(0));
    const outcome = late.then(
      () => 'committed',
      (error: unknown) => (error instanceof StaleTermError ? 'refused' : String(error)),
    );
    await sleep(200);
    await takeover.query('COMMIT');
    expect(await outcome).toBe('refused');
    expect(await a.snapshots.latestSnapshotId()).toBe(0);
  });

  it('goes to exactly one of several standbys claiming at once', async () => {
    const url = await createTestDatabase();
    const instances = await Promise.all([1, 2, 3, 4, 5].map(() => instanceOn(url)));
    const claims = await Promise.all(
      instances.map((instance, i) => instance.collectorLease.claim(`s:${i}`, null, 10_000)),
    );
    const winners = claims.filter((claim) => claim.held);
    expect(winners).toHaveLength(1);
    expect(await instances[0]?.collectorLease.leader()).toMatchObject({
      instance: winners[0]?.leader.instance,
      term: 1,
    });
  });

  it('once released, is taken by the next claimant at once, under the next term', async () => {
    const url = await createTestDatabase();
    const a = await instanceOn(url);
    const b = await instanceOn(url);
    await a.collectorLease.claim('a:1', null, 60_000);
    // A release by an instance that does not hold the lease (or under an old term) changes nothing.
    await b.collectorLease.release('b:2', 1);
    await a.collectorLease.release('a:1', 7);
    expect(await b.collectorLease.claim('b:2', null, 60_000)).toMatchObject({ held: false });

    await a.collectorLease.release('a:1', 1);
    expect(await b.collectorLease.claim('b:2', null, 60_000)).toMatchObject({
      held: true,
      leader: { instance: 'b:2', term: 2 },
    });
  });
});
