import type { CollectorStatus } from '../../collector/collector-status.ts';
import type { RateRow, Snapshot, SnapshotDraft } from '../../domain/rates.ts';
import type { CollectorStatusStore, SnapshotStore } from '../types.ts';
import type { SqliteDatabase } from './database.ts';

interface SnapshotRow {
  id: number;
  updated_at: string;
  source: string;
  usdt_irt: number | null;
  rates: string;
}

export class SqliteSnapshotStore implements SnapshotStore, CollectorStatusStore {
  readonly #insert;
  readonly #prune;
  readonly #latest;
  readonly #latestId;
  readonly #putStatus;
  readonly #getStatus;
  readonly #commit;

  constructor(
    db: SqliteDatabase,
    private readonly retention: number,
  ) {
    this.#insert = db.prepare<[string, string, number | null, string], never>(
      'INSERT INTO snapshots (updated_at, source, usdt_irt, rates) VALUES (?, ?, ?, ?)',
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
    // One transaction: the new row and the pruning become visible together or not at all.
    this.#commit = db.transaction((draft: SnapshotDraft): number => {
      const id = Number(
        this.#insert.run(draft.updated_at, draft.source, draft.usdt_irt, JSON.stringify(draft.rates))
          .lastInsertRowid,
      );
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
    return {
      id: row.id,
      updated_at: row.updated_at,
      source: row.source,
      usdt_irt: row.usdt_irt,
      rates: JSON.parse(row.rates) as RateRow[],
    };
  }

  async latestSnapshotId(): Promise<number> {
    return this.#latestId.get()?.id ?? 0;
  }

  async putCollectorStatus(status: CollectorStatus): Promise<void> {
    this.#putStatus.run(JSON.stringify(status));
  }

  async getCollectorStatus(): Promise<CollectorStatus | null> {
    const row = this.#getStatus.get();
    return row ? (JSON.parse(row.report) as CollectorStatus) : null;
  }
}
