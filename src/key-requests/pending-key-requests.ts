import type { Logger } from '../logger.ts';
import type { KeyRequestStore } from '../store/types.ts';

interface PendingKeyRequestsOptions {
  store: Pick<KeyRequestStore, 'countKeyRequests'>;
  logger: Logger;
  /** How often the count is read again from the store (default 15 s). */
  pollMs?: number;
}

/**
 * The number of key requests waiting for the operator, as the store holds it: read at start,
 * every `pollMs`, and at once after this process stores a request or hears that keys changed.
 * Read from the store rather than counted here, so every instance reports the same number, and a
 * request decided by `nerkh requests` in another process lowers it within `pollMs`
 * (docs/operations.md#key-requests). Served as `nerkh_key_requests_pending`.
 */
export class PendingKeyRequests {
  readonly #store: Pick<KeyRequestStore, 'countKeyRequests'>;
  readonly #logger: Logger;
  readonly #pollMs: number;
  /** The last count read; undefined until the first read succeeds. */
  #count: number | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** Reads asked for so far, and the latest of them whose count is kept. */
  #asked = 0;
  #applied = 0;

  constructor(options: PendingKeyRequestsOptions) {
    this.#store = options.store;
    this.#logger = options.logger;
    this.#pollMs = options.pollMs ?? 15_000;
  }

  /** Reads the count, then again every `pollMs`. */
  async start(): Promise<void> {
    await this.refresh();
    this.#timer = setInterval(() => void this.refresh(), this.#pollMs);
    this.#timer.unref();
  }

  close(): void {
    clearInterval(this.#timer);
  }

  /** The pending requests as last read, or undefined before the first read. */
  count(): number | undefined {
    return this.#count;
  }

  /** Reads the count again now; of reads that overlap, the one asked for last is kept. */
  async refresh(): Promise<void> {
    const read = ++this.#asked;
    try {
      const count = await this.#store.countKeyRequests('pending');
      if (read > this.#applied) {
        this.#applied = read;
        this.#count = count;
      }
    } catch (error) {
      this.#logger.error({ err: error }, 'counting pending key requests failed; the last count stays');
    }
  }
}
