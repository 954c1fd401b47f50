import type pg from 'pg';
import type {
  CollectorLeader,
  CollectorLease,
  CollectorStatusStore,
  PriceAcceptanceStore,
  SnapshotStore,
} from '../types.ts';
import { PostgresSnapshotStore } from './snapshot-store.ts';

interface LeaseRow {
  term: string;
  holder: string;
  acquired_at: Date;
  expires_at: Date;
  live: boolean;
  held: boolean;
}

/**
 * Renews the lease for its holder under the same term, or hands it to the claimant under the next
 * term once it ran out (`now()` is the database's clock, so instances' clocks never decide), then
 * reads it as it is. One statement: the UPDATE's row lock makes two standbys claiming at once take
 * turns, and the second finds the lease live again and gets nothing. Its read is a locking one
 * (FOR SHARE), which returns the row as the first one left it, not as it was when the statement began.
 */
const claim = {
  name: 'nerkh-claim-collector-lease',
  text: `WITH claimed AS (
           UPDATE collector_lease SET
             term = CASE WHEN holder = $1::text AND term = $2::bigint THEN term ELSE term + 1 END,
             acquired_at = CASE WHEN holder = $1::text AND term = $2::bigint THEN acquired_at ELSE now() END,
             holder = $1::text,
             expires_at = now() + $3::double precision * interval '1 millisecond'
           WHERE id = 1 AND ((holder = $1::text AND term = $2::bigint) OR expires_at <= now())
           RETURNING term, holder, acquired_at, expires_at
         ), current AS (
           SELECT term, holder, acquired_at, expires_at FROM collector_lease
           WHERE id = 1 AND NOT EXISTS (SELECT FROM claimed)
           FOR SHARE
         )
         SELECT term, holder, acquired_at, expires_at, true AS live, true AS held FROM claimed
         UNION ALL
         SELECT term, holder, acquired_at, expires_at, expires_at > now(), false FROM current`,
};

const read = {
  name: 'nerkh-read-collector-lease',
  text: `SELECT term, holder, acquired_at, expires_at, expires_at > now() AS live, false AS held
         FROM collector_lease WHERE id = 1`,
};

function leaderOf(row: LeaseRow): CollectorLeader {
  return {
    instance: row.holder,
    term: Number(row.term),
    since: row.acquired_at.toISOString(),
    expiresAt: row.expires_at.toISOString(),
    live: row.live,
  };
}

/**
 * The collector lease as one row of PostgreSQL (`collector_lease`), read and written through the
 * store's pool: electing costs one short statement per renewal and no connection of its own.
 */
export class PostgresCollectorLease implements CollectorLease {
  constructor(
    private readonly pool: pg.Pool,
    private readonly retention: number,
  ) {}

  async claim(
    instance: string,
    heldTerm: number | null,
    ttlMs: number,
  ): Promise<{ held: boolean; leader: CollectorLeader }> {
    const { rows } = await this.pool.query<LeaseRow>({ ...claim, values: [instance, heldTerm, ttlMs] });
    const row = rows[0];
    if (row === undefined) throw new Error('the collector_lease row is missing; run `nerkh migrate`');
    return { held: row.held, leader: leaderOf(row) };
  }

  async release(instance: string, term: number): Promise<void> {
    await this.pool.query(
      'UPDATE collector_lease SET expires_at = now() WHERE id = 1 AND holder = $1 AND term = $2',
      [instance, term],
    );
  }

  async leader(): Promise<CollectorLeader | null> {
    const row = (await this.pool.query<LeaseRow>(read)).rows[0];
    return row === undefined || Number(row.term) === 0 ? null : leaderOf(row);
  }

  storeFor(term: number): SnapshotStore & CollectorStatusStore & PriceAcceptanceStore {
    return new PostgresSnapshotStore(this.pool, this.retention, term);
  }
}
