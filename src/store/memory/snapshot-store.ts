import { type HistoryRange, type PricePoint, seriesBySymbol } from '../../domain/price-history.ts';
import { type Snapshot, type SnapshotDraft, withRowSources } from '../../domain/rates.ts';
import type { CollectorStatus } from '../collector-status.ts';
import type { PriceAcceptance, PriceAcceptanceDraft } from '../price-acceptance.ts';
import type { CollectorStatusStore, PriceAcceptanceStore, SnapshotStore } from '../types.ts';

/** In-memory twin of SqliteSnapshotStore for tests: same contract, nothing survives the process. */
export class MemorySnapshotStore implements SnapshotStore, CollectorStatusStore, PriceAcceptanceStore {
  #snapshots: Snapshot[] = [];
  readonly #acceptances: PriceAcceptance[] = [];
  #status: CollectorStatus | null = null;
  #nextId = 1;

  constructor(private readonly retention = 1000) {}

  async commitSnapshot(draft: SnapshotDraft): Promise<Snapshot> {
    const snapshot: Snapshot = structuredClone({ id: this.#nextId++, ...draft });
    this.#snapshots.push(snapshot);
    if (this.#snapshots.length > this.retention) this.#snapshots.shift();
    return structuredClone(snapshot);
  }

  async latestSnapshot(): Promise<Snapshot | null> {
    const last = this.#snapshots.at(-1);
    // As the stores on disk do, for a draft shaped as an older nerkh committed it.
    return last ? withRowSources(structuredClone(last)) : null;
  }

  async latestSnapshotId(): Promise<number> {
    return this.#snapshots.at(-1)?.id ?? 0;
  }

  async priceHistory(symbol: string, range: HistoryRange): Promise<PricePoint[]> {
    return (await this.#histories(range, symbol)).get(symbol) ?? [];
  }

  async priceHistories(range: HistoryRange): Promise<Map<string, PricePoint[]>> {
    return this.#histories(range);
  }

  async #histories(range: HistoryRange, onlySymbol?: string): Promise<Map<string, PricePoint[]>> {
    const fromMs = Date.parse(range.from);
    const toMs = Date.parse(range.to);
    const rows = this.#snapshots
      .filter((snapshot) => {
        const atMs = Date.parse(snapshot.updated_at);
        return atMs >= fromMs && atMs <= toMs;
      })
      .flatMap((snapshot) =>
        snapshot.rates
          .filter((row) => onlySymbol === undefined || row.symbol === onlySymbol)
          .map((row) => ({
            symbol: row.symbol,
            at: snapshot.updated_at,
            sell_usdt: row.sell_usdt,
            sell_irt: row.sell_irt,
          })),
      );
    return seriesBySymbol(rows, range);
  }

  async putCollectorStatus(status: CollectorStatus): Promise<void> {
    this.#status = structuredClone(status);
  }

  async getCollectorStatus(): Promise<CollectorStatus | null> {
    return this.#status ? structuredClone(this.#status) : null;
  }

  async recordPriceAcceptance(draft: PriceAcceptanceDraft, now = new Date()): Promise<PriceAcceptance> {
    const acceptance = { ...draft, id: this.#acceptances.length + 1, accepted_at: now.toISOString() };
    this.#acceptances.push(acceptance);
    return { ...acceptance };
  }

  async priceAcceptances(query: { afterId?: number; since?: string }): Promise<PriceAcceptance[]> {
    const { afterId = 0, since } = query;
    return this.#acceptances
      .filter((entry) => entry.id > afterId && (since === undefined || entry.accepted_at >= since))
      .map((entry) => ({ ...entry }));
  }
}
