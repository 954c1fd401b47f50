import type { CollectorStatus } from '../../collector/collector-status.ts';
import type { Snapshot, SnapshotDraft } from '../../domain/rates.ts';
import type { CollectorStatusStore, SnapshotStore } from '../types.ts';

/** In-memory twin of SqliteSnapshotStore for tests: same contract, nothing survives the process. */
export class MemorySnapshotStore implements SnapshotStore, CollectorStatusStore {
  #snapshots: Snapshot[] = [];
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
    return last ? structuredClone(last) : null;
  }

  async latestSnapshotId(): Promise<number> {
    return this.#snapshots.at(-1)?.id ?? 0;
  }

  async putCollectorStatus(status: CollectorStatus): Promise<void> {
    this.#status = structuredClone(status);
  }

  async getCollectorStatus(): Promise<CollectorStatus | null> {
    return this.#status ? structuredClone(this.#status) : null;
  }
}
