import { type HistoryRange, type PricePoint, seriesBySymbol } from '../../domain/price-history.ts';
import { type RateRow, type Snapshot, type SnapshotDraft, withRowSources } from '../../domain/rates.ts';
import type { CollectorStatus } from '../collector-status.ts';
import type { PriceAcceptance, PriceAcceptanceDraft } from '../price-acceptance.ts';
import type { CollectorStatusStore, PriceAcceptanceStore, SnapshotStore } from '../types.ts';
import type { SqliteDatabase } from './database.ts';

interface SnapshotRow {
  id: number;
  updated_at: string;
  source: string;
  usdt_irt: number | null;
  rates: string;
}

type HistoryRow = PricePoint & { symbol: string };

/**
 * The price points of the snapshots in a time span, oldest first: each snapshot row is matched by
 * its time (no JSON is decoded), then its points by primary key. `updated_at` is ISO 8601 in UTC
 * as `toISOString` writes it, so text order is time order.
 */
const historySql = `SELECT p.symbol, s.updated_at AS at, p.sell_usdt, p.sell_irt
       FROM snapshots s JOIN price_points p ON p.snapshot_id = s.id
       WHERE s.updated_at >= ? AND s.updated_at <= ?`;

export class SqliteSnapshotStore implements SnapshotStore, CollectorStatusStore, PriceAcceptanceStore {
  readonly #insert;
  readonly #insertPoint;
  readonly #prune;
  readonly #latest;
  readonly #latestId;
  readonly #putStatus;
  readonly #getStatus;
  readonly #commit;
  readonly #historyOfAll;
  readonly #historyOfOne;
  readonly #insertAcceptance;
  readonly #acceptances;

  constructor(
    db: SqliteDatabase,
    private readonly retention: number,
  ) {
    this.#insert = db.prepare<[string, string, number | null, string], never>(
      'INSERT INTO snapshots (updated_at, source, usdt_irt, rates) VALUES (?, ?, ?, ?)',
    );
    this.#insertPoint = db.prepare<[number, string, number, number | null], never>(
      'INSERT INTO price_points (snapshot_id, symbol, sell_usdt, sell_irt) VALUES (?, ?, ?, ?)',
    );
    this.#prune = db.prepare<[number], never>('DELETE FROM snapshots WHERE id <= ?');
    this.#latest = db.prepare<[], SnapshotRow>(
      'SELECT id, updated_at, source, usdt_irt, rates FROM snapshots ORDER BY id DESC LIMIT 1',
    );
    this.#latestId = db.prepare<[], { id: number | null }>('SELECT max(id) AS id FROM snapshots');
    this.#putStatus = db.prepare<[string], never>(
      'INSERT INTO collector_status (id, report) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET report = excluded.report',
    );
    this.#getStatus = db.prepare<[], { report: string }>('SELECT report FROM collector_status WHERE id = 1');
    this.#historyOfAll = db.prepare<[string, string], HistoryRow>(`${historySql} ORDER BY s.id`);
    this.#historyOfOne = db.prepare<[string, string, string], HistoryRow>(
      `${historySql} AND p.symbol = ? ORDER BY s.id`,
    );
    this.#insertAcceptance = db.prepare<[string, string, string, number, string, string, string], never>(
      `INSERT INTO price_acceptances (symbol, currency, source, price, operator, reason, accepted_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#acceptances = db.prepare<[number, string], PriceAcceptance>(
      `SELECT id, symbol, currency, source, price, operator, reason, accepted_at
       FROM price_acceptances WHERE id > ? AND accepted_at >= ? ORDER BY id`,
    );
    // One transaction: the new row, its points and the pruning become visible together or not at all.
    this.#commit = db.transaction((draft: SnapshotDraft): number => {
      const id = Number(
        this.#insert.run(draft.updated_at, draft.source, draft.usdt_irt, JSON.stringify(draft.rates))
          .lastInsertRowid,
      );
      for (const row of draft.rates) this.#insertPoint.run(id, row.symbol, row.sell_usdt, row.sell_irt);
      // The pruned snapshots' points go with them (ON DELETE CASCADE).
      this.#prune.run(id - this.retention);
      return id;
    });
  }

  async commitSnapshot(draft: SnapshotDraft): Promise<Snapshot> {
    const id = this.#commit.immediate(draft);
    return { id, ...draft };
  }

  async latestSnapshot(): Promise<Snapshot | null> {
    const row = this.#latest.get();
    if (!row) return null;
    // A snapshot an older nerkh committed has rows that do not name their source.
    return withRowSources({
      id: row.id,
      updated_at: row.updated_at,
      source: row.source,
      usdt_irt: row.usdt_irt,
      rates: JSON.parse(row.rates) as RateRow[],
    });
  }

  async latestSnapshotId(): Promise<number> {
    return this.#latestId.get()?.id ?? 0;
  }

  async priceHistory(symbol: string, range: HistoryRange): Promise<PricePoint[]> {
    const rows = this.#historyOfOne.iterate(range.from, range.to, symbol);
    return seriesBySymbol(rows, range).get(symbol) ?? [];
  }

  async priceHistories(range: HistoryRange): Promise<Map<string, PricePoint[]>> {
    return seriesBySymbol(this.#historyOfAll.iterate(range.from, range.to), range);
  }

  async putCollectorStatus(status: CollectorStatus): Promise<void> {
    this.#putStatus.run(JSON.stringify(status));
  }

  async getCollectorStatus(): Promise<CollectorStatus | null> {
    const row = this.#getStatus.get();
    return row ? (JSON.parse(row.report) as CollectorStatus) : null;
  }

  async recordPriceAcceptance(draft: PriceAcceptanceDraft, now = new Date()): Promise<PriceAcceptance> {
    const acceptedAt = now.toISOString();
    const { symbol, currency, source, price, operator, reason } = draft;
    const id = Number(
      this.#insertAcceptance.run(symbol, currency, source, price, operator, reason, acceptedAt)
        .lastInsertRowid,
    );
    return { ...draft, id, accepted_at: acceptedAt };
  }

  async priceAcceptances(query: { afterId?: number; since?: string }): Promise<PriceAcceptance[]> {
    return this.#acceptances.all(query.afterId ?? 0, query.since ?? '');
  }
}
