import type { Snapshot } from '../../domain/rates.ts';
import type { Logger } from '../../logger.ts';
import { quickBrotli, type RatesLabels } from './body-encoding.ts';
import { SnapshotView } from './snapshot-view.ts';

interface SnapshotCacheOptions {
  labels: RatesLabels;
  logger: Logger;
}

/**
 * Holds the view of the latest committed snapshot that the rates endpoint serves. A snapshot
 * offered to it (./snapshot-poll.ts reads them from the store) becomes the served view once its
 * full list is encoded; the view is rebuilt only when the snapshot's id changes.
 */
export class SnapshotCache {
  readonly #labels: RatesLabels;
  readonly #logger: Logger;
  #view: SnapshotView | null = null;
  #closed = false;

  constructor(options: SnapshotCacheOptions) {
    this.#labels = options.labels;
    this.#logger = options.logger;
  }

  close(): void {
    this.#closed = true;
    this.#view?.supersede();
  }

  /** The latest snapshot's view, or null before the first commit. */
  current(): SnapshotView | null {
    return this.#view;
  }

  /** Whether the snapshot with this id is the one served. */
  serves(snapshotId: number): boolean {
    return snapshotId === this.#view?.snapshot.id;
  }

  /** Serves `snapshot` from the moment its full list is encoded; rejects if encoding fails. */
  async offer(snapshot: Snapshot): Promise<void> {
    if (this.#closed || this.serves(snapshot.id)) return;
    // With nothing served yet (the instance's start), every request waits for this view: its
    // br is made quickly, and at the best quality once it is served.
    const view = await SnapshotView.build(
      snapshot,
      this.#labels,
      this.#view === null ? quickBrotli : undefined,
    );
    if (this.#closed) return;
    this.#view?.supersede();
    this.#view = view;
    void view.prepare().catch((error: unknown) => {
      this.#logger.error(
        { err: error },
        'preparing bodies in the background failed; single symbols are made on request',
      );
    });
    this.#logger.debug({ snapshot_id: snapshot.id, count: snapshot.rates.length }, 'serving new snapshot');
  }
}
