import type { Logger } from '../../logger.ts';
import type { SnapshotStore } from '../../store/types.ts';
import type { SnapshotCache } from './snapshot-cache.ts';

interface SnapshotPollOptions {
  store: SnapshotStore;
  cache: SnapshotCache;
  logger: Logger;
  /** How often the store's latest snapshot id is polled. */
  pollMs?: number;
}

/**
 * Keeps the cache on the store's latest committed snapshot. It polls `latestSnapshotId()` (one
 * indexed read), so an API-only process sees commits made by a collector in another process within
 * a poll period, and it reads the snapshot itself only when the id changes.
 */
export class SnapshotPoll {
  readonly #store: SnapshotStore;
  readonly #cache: SnapshotCache;
  readonly #logger: Logger;
  readonly #pollMs: number;
  #timer: NodeJS.Timeout | undefined;
  #refreshing: Promise<void> | null = null;
  #closed = false;

  constructor(options: SnapshotPollOptions) {
    this.#store = options.store;
    this.#cache = options.cache;
    this.#logger = options.logger;
    this.#pollMs = options.pollMs ?? 1000;
  }

  async start(): Promise<void> {
    await this.refresh();
    // Closed while the first snapshot loaded (a start that failed elsewhere): nothing to poll for.
    if (this.#closed) return;
    this.#timer = setInterval(() => void this.refresh(), this.#pollMs);
    this.#timer.unref();
  }

  close(): void {
    this.#closed = true;
    clearInterval(this.#timer);
  }

  /** Polls once; concurrent calls share one poll. A failing store keeps the last good view. */
  refresh(): Promise<void> {
    this.#refreshing ??= this.#poll().finally(() => {
      this.#refreshing = null;
    });
    return this.#refreshing;
  }

  async #poll(): Promise<void> {
    try {
      const id = await this.#store.latestSnapshotId();
      if (id === 0 || this.#cache.holds(id)) return;
      const snapshot = await this.#store.latestSnapshot();
      if (snapshot === null || this.#closed) return;
      await this.#cache.offer(snapshot);
    } catch (error) {
      this.#logger.error({ err: error }, 'polling the snapshot store failed; serving the last snapshot');
    }
  }
}
