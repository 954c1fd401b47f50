import type { Snapshot } from '../../domain/rates.ts';
import type { Logger } from '../../logger.ts';
import { quickBrotli, type RatesLabels } from './body-encoding.ts';
import { SnapshotView } from './snapshot-view.ts';

interface SnapshotCacheOptions {
  labels: RatesLabels;
  logger: Logger;
}

/**
 * Holds the view of the latest committed snapshot that the rates endpoint serves. Snapshots are
 * offered to it from two sides: the store's poll (./snapshot-poll.ts), which sees every process's
 * commits, and, in a process that runs the collector too, that collector's commits as they happen.
 * An offered snapshot becomes the served view once its full list is encoded, one view at a time,
 * the newest offered first; one already taken, or older than it, is ignored.
 */
export class SnapshotCache {
  readonly #labels: RatesLabels;
  readonly #logger: Logger;
  #view: SnapshotView | null = null;
  /** The newest snapshot taken: served, or being encoded to be. */
  #taken: Snapshot | null = null;
  /** The newest snapshot taken and not yet being encoded. */
  #waiting: Snapshot | null = null;
  #encoding: Promise<void> | null = null;
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

  /** Whether the snapshot with this id is the one served, or the one about to be. */
  holds(snapshotId: number): boolean {
    return snapshotId === this.#taken?.id;
  }

  /**
   * Serves `snapshot` from the moment its full list is encoded, unless it is the one taken already
   * or older (a lower id and an earlier commit: a replaced store starts its ids again, later).
   * Resolves once the newest snapshot offered is served; never rejects.
   */
  offer(snapshot: Snapshot): Promise<void> {
    if (this.#closed || !this.#isNewer(snapshot)) return this.#encoding ?? Promise.resolve();
    this.#taken = snapshot;
    this.#waiting = snapshot;
    this.#encoding ??= this.#encodeWaiting();
    return this.#encoding;
  }

  #isNewer(snapshot: Snapshot): boolean {
    const taken = this.#taken;
    if (taken === null) return true;
    return snapshot.id > taken.id || Date.parse(snapshot.updated_at) > Date.parse(taken.updated_at);
  }

  async #encodeWaiting(): Promise<void> {
    try {
      while (this.#waiting !== null && !this.#closed) {
        const snapshot = this.#waiting;
        this.#waiting = null;
        // With nothing served yet (the instance's start), every request waits for this view: its
        // br is made quickly, and at the best quality once it is served.
        let view: SnapshotView;
        try {
          view = await SnapshotView.build(
            snapshot,
            this.#labels,
            this.#view === null ? quickBrotli : undefined,
          );
        } catch (error) {
          this.#logger.error({ err: error }, 'encoding a new snapshot failed; serving the last snapshot');
          // Offered again (the next poll), it is encoded again.
          if (this.#taken === snapshot) this.#taken = this.#view?.snapshot ?? null;
          continue;
        }
        if (this.#closed) return;
        this.#serve(view);
      }
    } finally {
      // In the same turn as the loop's last check: an offer made after it starts a new loop.
      this.#encoding = null;
    }
  }

  #serve(view: SnapshotView): void {
    this.#view?.supersede();
    this.#view = view;
    void view.prepare().catch((error: unknown) => {
      this.#logger.error(
        { err: error },
        'preparing bodies in the background failed; single symbols are made on request',
      );
    });
    this.#logger.debug(
      { snapshot_id: view.snapshot.id, count: view.snapshot.rates.length },
      'serving new snapshot',
    );
  }
}
