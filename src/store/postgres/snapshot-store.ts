import type pg from 'pg';
import { type HistoryRange, type PricePoint, seriesBySymbol } from '../../domain/price-history.ts';
import { type RateRow, type Snapshot, type SnapshotDraft, withRowSources } from '../../domain/rates.ts';
import type { CollectorStatus } from '../collector-status.ts';
import type { PriceAcceptance, PriceAcceptanceDraft } from '../price-acceptance.ts';
import { StaleTermError } from '../stale-term-error.ts';
import type { CollectorStatusStore, PriceAcceptanceStore, SnapshotStore } from '../types.ts';

interface SnapshotRow {
  /** bigint columns arrive as strings (they may exceed 2^53); ours never do. */
  id: string;
  updated_at: Date;
  source: string;
  usdt_irt: string | null;
  rates: RateRow[];
}

/**
 * One statement inserts the snapshot with its price points (the charts' history) and prunes beyond
 * the retention bound (the points go with their snapshot, ON DELETE CASCADE), so all become
 * visible together or not at all. The statement's queries do not see the row it inserts: keeping
 * the newest `retention - 1` older rows ($5) leaves `retention` in all. Pruning goes by rank, not
 * by `id - retention`, because identity values have gaps (a rolled-back insert still uses one).
 *
 * A leader's commit carries its term ($6; null for a store no lease elects) and inserts only if
 * that is the lease's term. The lease row is read FOR SHARE: a standby taking the lease over waits
 * for a commit in flight to end, and a commit that began before the takeover ended sees the new
 * term once it has the row, so no snapshot of a deposed leader can land after its successor's start.
 */
const commit = {
  name: 'nerkh-commit-snapshot',
  text: `WITH fence AS (
           SELECT FROM collector_lease WHERE id = 1 AND ($6::bigint IS NULL OR term = $6) FOR SHARE
         ), inserted AS (
           INSERT INTO snapshots (updated_at, source, usdt_irt, rates)
           SELECT $1::timestamptz, $2::text, $3::bigint, $4::json FROM fence RETURNING id
         ), points AS (
           INSERT INTO price_points (snapshot_id, symbol, sell_usdt, sell_irt)
           SELECT inserted.id, r.symbol, r.sell_usdt, r.sell_irt
           FROM inserted, json_to_recordset($4::json) AS r(symbol text, sell_usdt float8, sell_irt bigint)
         ), pruned AS (
           DELETE FROM snapshots
           WHERE EXISTS (SELECT FROM inserted)
             AND id <= (SELECT id FROM snapshots ORDER BY id DESC OFFSET $5 LIMIT 1)
         )
         SELECT id FROM inserted`,
};
/** The collector's health report, fenced as a commit is. */
const putStatus = {
  name: 'nerkh-put-collector-status',
  text: `WITH fence AS (
           SELECT FROM collector_lease WHERE id = 1 AND ($2::bigint IS NULL OR term = $2) FOR SHARE
         )
         INSERT INTO collector_status (id, report) SELECT 1, $1::json FROM fence
         ON CONFLICT (id) DO UPDATE SET report = excluded.report
         RETURNING id`,
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

/**
 * The price points of the snapshots in a time span, oldest first; $3 null: every symbol. Each
 * snapshot row is matched by its time (no JSON is decoded), then its points by primary key.
 */
const history = {
  name: 'nerkh-price-history',
  // The time as ISO 8601 text, as toISOString writes it: the driver's timestamptz parsing, once per
  // point, was most of the cost of reading every coin's day.
  text: `SELECT p.symbol, to_char(s.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at,
           p.sell_usdt, p.sell_irt
         FROM snapshots s
         JOIN price_points p ON p.snapshot_id = s.id
         WHERE s.updated_at >= $1::timestamptz AND s.updated_at <= $2::timestamptz
           AND ($3::text IS NULL OR p.symbol = $3::text)
         ORDER BY s.id`,
};

interface HistoryRow {
  symbol: string;
  at: string;
  sell_usdt: number;
  /** bigint, as a string. */
  sell_irt: string | null;
}

export class PostgresSnapshotStore implements SnapshotStore, CollectorStatusStore, PriceAcceptanceStore {
  /**
   * @param term the collector lease term every write is fenced by (`CollectorLease.storeFor`), or
   * null for a store that readers, tools and tests use without being elected.
   */
  constructor(
    private readonly pool: pg.Pool,
    private readonly retention: number,
    private readonly term: number | null = null,
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
        this.term,
      ],
    });
    const id = rows[0]?.id;
    if (id === undefined) throw new StaleTermError(this.term ?? 0);
    return { id: Number(id), ...draft };
  }

  async latestSnapshot(): Promise<Snapshot | null> {
    const row = (await this.pool.query<SnapshotRow>(latest)).rows[0];
    if (!row) return null;
    // A snapshot an older nerkh committed has rows that do not name their source.
    return withRowSources({
      id: Number(row.id),
      updated_at: row.updated_at.toISOString(),
      source: row.source,
      usdt_irt: row.usdt_irt === null ? null : Number(row.usdt_irt),
      rates: row.rates,
    });
  }

  async latestSnapshotId(): Promise<number> {
    return Number((await this.pool.query<{ id: string }>(latestId)).rows[0]?.id ?? 0);
  }

  async priceHistory(symbol: string, range: HistoryRange): Promise<PricePoint[]> {
    return (await this.#histories(range, symbol)).get(symbol) ?? [];
  }

  async priceHistories(range: HistoryRange): Promise<Map<string, PricePoint[]>> {
    return this.#histories(range, null);
  }

  async #histories(range: HistoryRange, symbol: string | null): Promise<Map<string, PricePoint[]>> {
    const { rows } = await this.pool.query<HistoryRow>({
      ...history,
      values: [range.from, range.to, symbol],
    });
    return seriesBySymbol(
      rows.map((row) => ({
        symbol: row.symbol,
        at: row.at,
        sell_usdt: row.sell_usdt,
        sell_irt: row.sell_irt === null ? null : Number(row.sell_irt),
      })),
      range,
    );
  }

  async putCollectorStatus(status: CollectorStatus): Promise<void> {
    const { rowCount } = await this.pool.query({ ...putStatus, values: [JSON.stringify(status), this.term] });
    if (rowCount === 0) throw new StaleTermError(this.term ?? 0);
  }

  async getCollectorStatus(): Promise<CollectorStatus | null> {
    const { rows } = await this.pool.query<{ report: CollectorStatus }>(
      'SELECT report FROM collector_status WHERE id = 1',
    );
    return rows[0]?.report ?? null;
  }

  async recordPriceAcceptance(draft: PriceAcceptanceDraft, now = new Date()): Promise<PriceAcceptance> {
    const { symbol, currency, source, price, operator, reason } = draft;
    const { rows } = await this.pool.query<{ id: string }>(
      `INSERT INTO price_acceptances (symbol, currency, source, price, operator, reason, accepted_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
      [symbol, currency, source, price, operator, reason, now.toISOString()],
    );
    return { ...draft, id: Number(rows[0]?.id), accepted_at: now.toISOString() };
  }

  async priceAcceptances(query: { afterId?: number; since?: string }): Promise<PriceAcceptance[]> {
    const { rows } = await this.pool.query<
      Omit<PriceAcceptance, 'id' | 'accepted_at'> & { id: string; accepted_at: Date }
    >(
      `SELECT id, symbol, currency, source, price, operator, reason, accepted_at
       FROM price_acceptances
       WHERE id > $1 AND ($2::timestamptz IS NULL OR accepted_at >= $2::timestamptz)
       ORDER BY id`,
      [query.afterId ?? 0, query.since ?? null],
    );
    return rows.map((row) => ({ ...row, id: Number(row.id), accepted_at: row.accepted_at.toISOString() }));
  }
}
