import type pg from 'pg';
import type { CollectorStatus } from '../../collector/collector-status.ts';
import type { RateRow, Snapshot, SnapshotDraft } from '../../domain/rates.ts';
import type { CollectorStatusStore, SnapshotStore } from '../types.ts';

interface SnapshotRow {
  /** bigint columns arrive as strings (they may exceed 2^53); ours never do. */
  id: string;
  updated_at: Date;
  source: string;
  usdt_irt: string | null;
  rates: RateRow[];
}

/**
 * One statement inserts the snapshot and prunes beyond the retention bound, so both become
 * visible together or not at all. The statement's queries do not see the row it inserts: keeping
 * the newest `retention - 1` older rows ($5) leaves `retention` in all. Pruning goes by rank, not
 * by `id - retention`, because identity values have gaps (a rolled-back insert still uses one).
 */
const commit = {
  name: 'nerkh-commit-snapshot',
  text: `WITH inserted AS (
           INSERT INTO snapshots (updated_at, source, usdt_irt, rates) VALUES ($1, $2, $3, $4) RETURNING id
         ), pruned AS (
           DELETE FROM snapshots
           WHERE id <= (SELECT id FROM snapshots ORDER BY id DESC OFFSET $5 LIMIT 1)
         )
         SELECT id FROM inserted`,
};
// Named statements are parsed and planned once per connection: these run on every poll and read.
const latest = {
  name: 'nerkh-latest-snapshot',
  text: 'SELECT id, updated_at, source, usdt_irt, rates FROM snapshots ORDER BY id DESC LIMIT 1',
};
const latestId = {
  name: 'nerkh-latest-snapshot-id',
  text: 'SELECT coalesce(max(id), 0) AS id FROM snapshots',
};

export class PostgresSnapshotStore implements SnapshotStore, CollectorStatusStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly retention: number,
  ) {}

  async commitSnapshot(draft: SnapshotDraft): Promise<Snapshot> {
    const { rows } = await this.pool.query<{ id: string }>({
      ...commit,
      values: [
        draft.updated_at,
        draft.source,
        draft.usdt_irt,
        JSON.stringify(draft.rates),
        this.retention - 1,
      ],
    });
    return { id: Number(rows[0]?.id), ...draft };
  }

  async latestSnapshot(): Promise<Snapshot | null> {
    const row = (await this.pool.query<SnapshotRow>(latest)).rows[0];
    if (!row) return null;
    return {
      id: Number(row.id),
      updated_at: row.updated_at.toISOString(),
      source: row.source,
      usdt_irt: row.usdt_irt === null ? null : Number(row.usdt_irt),
      rates: row.rates,
    };
  }

  async latestSnapshotId(): Promise<number> {
    return Number((await this.pool.query<{ id: string }>(latestId)).rows[0]?.id ?? 0);
  }

  async putCollectorStatus(status: CollectorStatus): Promise<void> {
    await this.pool.query(
      `INSERT INTO collector_status (id, report) VALUES (1, $1)
       ON CONFLICT (id) DO UPDATE SET report = excluded.report`,
      [JSON.stringify(status)],
    );
  }

  async getCollectorStatus(): Promise<CollectorStatus | null> {
    const { rows } = await this.pool.query<{ report: CollectorStatus }>(
      'SELECT report FROM collector_status WHERE id = 1',
    );
    return rows[0]?.report ?? null;
  }
}
