import type { Logger } from '../logger.ts';
import type { ApiKeyStore } from '../store/types.ts';

/**
 * A key's last use as known in memory: a field write per request (where a map of pending uses
 * cost a map insertion), handed to the store by the writer below.
 */
export class KeyUse {
  /** Epoch ms of the last authenticated request. */
  #lastUsedMs = Number.NEGATIVE_INFINITY;
  /** `#lastUsedMs` as last handed to the store. */
  #writtenMs = Number.NEGATIVE_INFINITY;

  constructor(readonly id: string) {}

  /** Records a request at `nowMs`. */
  used(nowMs: number): void {
    this.#lastUsedMs = nowMs;
  }

  /** The last use not handed to the store yet, now counted as handed; undefined when there is none. */
  takePendingUse(): number | undefined {
    if (this.#lastUsedMs <= this.#writtenMs) return undefined;
    this.#writtenMs = this.#lastUsedMs;
    return this.#lastUsedMs;
  }
}

interface LastUseWriterOptions {
  store: Pick<ApiKeyStore, 'recordApiKeyUse'>;
  logger: Logger;
  /** The keys whose uses are tracked right now (the authenticator's cached keys). */
  liveKeys: () => Iterable<KeyUse>;
  /** How often batched last-use times are written. */
  flushMs?: number;
  /** Keys per last-use transaction (default 500; docs/decisions/0037-background-work-in-small-steps.md). */
  flushChunk?: number;
}

/**
 * Writes keys' last-use times to the store in one batch per `flushMs` and at close, so serving a
 * request never waits on a store write. The live keys hold their own last use (`KeyUse`); a key
 * that leaves them (a cache drop or eviction) hands its unwritten use over first (`keep`).
 */
export class LastUseWriter {
  readonly #store: Pick<ApiKeyStore, 'recordApiKeyUse'>;
  readonly #logger: Logger;
  readonly #liveKeys: () => Iterable<KeyUse>;
  readonly #flushMs: number;
  readonly #flushChunk: number;
  /**
   * key id → epoch ms of last uses not yet written whose keys left the live ones; the live keys
   * hold their own (`KeyUse`).
   */
  #pendingUse = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;

  constructor(options: LastUseWriterOptions) {
    this.#store = options.store;
    this.#logger = options.logger;
    this.#liveKeys = options.liveKeys;
    this.#flushMs = options.flushMs ?? 30_000;
    this.#flushChunk = options.flushChunk ?? 500;
  }

  /** Starts writing every `flushMs`. */
  start(): void {
    this.#timer = setInterval(() => void this.flush(), this.#flushMs);
    this.#timer.unref();
  }

  /** Stops the timer and writes what is pending. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.flush();
  }

  /** Takes the last uses of `keys` not yet written, before the keys leave the live ones. */
  keep(keys: Iterable<KeyUse>): void {
    for (const key of keys) {
      const lastUsedMs = key.takePendingUse();
      if (lastUsedMs !== undefined) this.#pendingUse.set(key.id, lastUsedMs);
    }
  }

  /**
   * Writes the pending last-use times in transactions of at most `flushChunk` keys, letting
   * requests run between them. The stores write off the event loop (SQLite on a thread of its
   * own, PostgreSQL over the network), but the event loop builds and hands over each batch, and a
   * batch of every key at once would stall every request in flight
   * (docs/decisions/0037-background-work-in-small-steps.md).
   */
  async flush(): Promise<void> {
    this.keep(this.#liveKeys());
    const batch = this.#pendingUse;
    this.#pendingUse = new Map();
    if (batch.size === 0) return;
    let chunk = new Map<string, string>();
    for (const [id, ms] of batch) {
      chunk.set(id, new Date(ms).toISOString());
      if (chunk.size === this.#flushChunk) {
        await this.#write(chunk);
        chunk = new Map();
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    if (chunk.size > 0) await this.#write(chunk);
  }

  async #write(lastUsed: ReadonlyMap<string, string>): Promise<void> {
    try {
      await this.#store.recordApiKeyUse(lastUsed);
    } catch (error) {
      this.#logger.error({ err: error }, 'writing API key last-use times failed');
    }
  }
}
