import type { Logger } from '../logger.ts';
import type { KeyDayUsage } from '../store/key-usage.ts';
import type { ApiKeyStore } from '../store/types.ts';

const msPerDay = 86_400_000;

/** `YYYY-MM-DD` of a UTC day numbered from the epoch. */
const dayOf = (day: number) => new Date(day * msPerDay).toISOString().slice(0, 10);

/** A key's limit decisions on one UTC day (numbered from the epoch) not handed to the store yet. */
interface DayCount {
  day: number;
  admitted: number;
  refused: number;
}

/**
 * A key's last use and its limit decisions per UTC day as known in memory: a field write or an
 * increment per request (where a map of pending uses cost a map insertion and a lookup), handed
 * to the store by the writer below (docs/operations.md#usage-per-key,
 * docs/decisions/0039-usage-counted-on-the-cached-key.md).
 */
export class KeyUse {
  /** Epoch ms of the last authenticated request. */
  #lastUsedMs = Number.NEGATIVE_INFINITY;
  /** `#lastUsedMs` as last handed to the store. */
  #writtenMs = Number.NEGATIVE_INFINITY;
  /** The UTC day (from the epoch) the two counts below are of. */
  #day = 0;
  #admitted = 0;
  #refused = 0;
  /** Counts of earlier days not handed over yet: a day ended between two flushes (rare, so an array). */
  #earlier: DayCount[] | undefined;

  constructor(readonly id: string) {}

  /** Records a request at `nowMs`. */
  used(nowMs: number): void {
    this.#lastUsedMs = nowMs;
  }

  /**
   * Counts one rate-limit decision taken at `nowMs`: two comparisons and an increment, no
   * allocation but once a day.
   */
  counted(allowed: boolean, nowMs: number): void {
    const day = Math.floor(nowMs / msPerDay);
    if (day !== this.#day) this.#startDay(day);
    if (allowed) this.#admitted++;
    else this.#refused++;
  }

  #startDay(day: number): void {
    if (this.#admitted > 0 || this.#refused > 0) {
      this.#earlier ??= [];
      this.#earlier.push({ day: this.#day, admitted: this.#admitted, refused: this.#refused });
    }
    this.#day = day;
    this.#admitted = 0;
    this.#refused = 0;
  }

  /** The last use not handed to the store yet, now counted as handed; undefined when there is none. */
  takePendingUse(): number | undefined {
    if (this.#lastUsedMs <= this.#writtenMs) return undefined;
    this.#writtenMs = this.#lastUsedMs;
    return this.#lastUsedMs;
  }

  /** The decisions counted and not handed to the store yet, now counted as handed. */
  takePendingCounts(into: (day: number, admitted: number, refused: number) => void): void {
    if (this.#earlier !== undefined) {
      for (const count of this.#earlier) into(count.day, count.admitted, count.refused);
      this.#earlier = undefined;
    }
    if (this.#admitted > 0 || this.#refused > 0) {
      into(this.#day, this.#admitted, this.#refused);
      this.#admitted = 0;
      this.#refused = 0;
    }
  }
}

/** Keys that left the live ones kept for late counts between two flushes, at most. */
const retiredBound = 10_000;

/**
 * What one key has pending for the store: its last use and its counts of one UTC day inline, other
 * days (a day ended between two flushes) in a list. One small object per key, never a map: a
 * busy service hands over tens of thousands of keys between two flushes (cache evictions), and a
 * map per key cost them several times the memory (docs/performance.md).
 */
class Pending {
  /** Epoch ms, or -Infinity for none. */
  lastUsedMs = Number.NEGATIVE_INFINITY;
  /** The UTC day (from the epoch) of the inline counts, or -1 before any. */
  day = -1;
  admitted = 0;
  refused = 0;
  otherDays: DayCount[] | undefined;

  used(ms: number): void {
    if (ms > this.lastUsedMs) this.lastUsedMs = ms;
  }

  add(day: number, admitted: number, refused: number): void {
    if (this.day === -1 || this.day === day) {
      this.day = day;
      this.admitted += admitted;
      this.refused += refused;
      return;
    }
    this.otherDays ??= [];
    const stored = this.otherDays.find((count) => count.day === day);
    if (stored === undefined) this.otherDays.push({ day, admitted, refused });
    else {
      stored.admitted += admitted;
      stored.refused += refused;
    }
  }

  /** Adds what `other` holds for the same key. */
  merge(other: Pending): void {
    this.used(other.lastUsedMs);
    other.forEachDay((day, admitted, refused) => this.add(day, admitted, refused));
  }

  forEachDay(each: (day: number, admitted: number, refused: number) => void): void {
    if (this.day !== -1) each(this.day, this.admitted, this.refused);
    for (const count of this.otherDays ?? []) each(count.day, count.admitted, count.refused);
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
  /**
   * Keys that left the live ones whose use waits to be written, beyond which it is written at once
   * rather than at the next flush (default 10,000).
   */
  heldBound?: number;
}

/**
 * Writes keys' last-use times and usage counts to the store in one batch per `flushMs` and at
 * close, so serving a request never waits on a store write. The live keys hold their own last use
 * and counts (`KeyUse`). A key that leaves them (a cache drop or eviction) is handed over
 * (`keep`): what it holds is taken at once, and it is read again at the next two flushes, since
 * a request that held it may still count a decision (a shared limiter answers later). What keys
 * that left hold is written sooner once 10,000 of them wait (more keys in use than the cache
 * holds). A batch the store fails to write is kept for the next flush, so an outage loses no counts.
 */
export class LastUseWriter {
  readonly #store: Pick<ApiKeyStore, 'recordApiKeyUse'>;
  readonly #logger: Logger;
  readonly #liveKeys: () => Iterable<KeyUse>;
  readonly #flushMs: number;
  readonly #flushChunk: number;
  /** Keys that left the live ones since the last flush. */
  #retired = new Set<KeyUse>();
  /** Keys that left the live ones before the last flush, read once more. */
  #retiredBefore = new Set<KeyUse>();
  /** Key id → what keys that left the live ones held, and what a failed write left to write. */
  #pending = new Map<string, Pending>();
  #timer: NodeJS.Timeout | undefined;
  /** The last flush asked for (it runs after the ones before it). */
  #flushing: Promise<void> | undefined;
  readonly #heldBound: number;
  /** A write of the held keys is asked for and has not started. */
  #heldWriteQueued = false;
  /**
   * The last write failed: held keys then wait for the flush period (which tries again), rather
   * than asking a store that is down again at every eviction.
   */
  #storeFailing = false;

  constructor(options: LastUseWriterOptions) {
    this.#store = options.store;
    this.#logger = options.logger;
    this.#liveKeys = options.liveKeys;
    this.#flushMs = options.flushMs ?? 30_000;
    this.#flushChunk = options.flushChunk ?? 500;
    this.#heldBound = options.heldBound ?? 10_000;
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

  /**
   * Hands over `keys`, which leave the live ones: what they hold is taken now, and what a request
   * still holding one counts later is taken at the next two flushes (for up to `retiredBound`
   * keys between two flushes, so a storm of cache drops cannot pile them up).
   */
  keep(keys: Iterable<KeyUse>): void {
    for (const key of keys) {
      takeInto(this.#pending, key);
      if (this.#retired.size < retiredBound) this.#retired.add(key);
    }
    this.#writeHeldSoon();
  }

  /**
   * Writes the pending last-use times and counts in transactions of at most `flushChunk` keys,
   * letting requests run between them. The stores write off the event loop (SQLite on a thread of
   * its own, PostgreSQL over the network), but the event loop builds and hands over each batch,
   * and a batch of every key at once would stall every request in flight
   * (docs/decisions/0037-background-work-in-small-steps.md).
   */
  flush(): Promise<void> {
    // One flush at a time: a flush asked for while another writes runs after it, so `close` (whose
    // caller closes the store next) returns only once every batch taken so far is written.
    const flushed = (this.#flushing ?? Promise.resolve()).then(() => this.#flushNow());
    this.#flushing = flushed;
    return flushed;
  }

  async #flushNow(): Promise<void> {
    const held = this.#pending;
    this.#pending = new Map();
    const retired = this.#retired;
    this.#retired = new Set();
    const retiredBefore = this.#retiredBefore;
    this.#retiredBefore = retired;
    await this.#writeChunked(held, [this.#liveKeys(), retired, retiredBefore]);
  }

  /**
   * Writes what keys that left the live ones hold now, before the flush period ends, once
   * `heldBound` of them wait: with more keys in use than the cache holds, every request may evict
   * one, and what they hold would otherwise grow with the keys until the next flush.
   */
  #writeHeldSoon(): void {
    if (this.#heldWriteQueued || this.#storeFailing || this.#pending.size < this.#heldBound) return;
    this.#heldWriteQueued = true;
    const written = (this.#flushing ?? Promise.resolve()).then(() => {
      this.#heldWriteQueued = false;
      const held = this.#pending;
      this.#pending = new Map();
      return this.#writeChunked(held, []);
    });
    this.#flushing = written;
  }

  /**
   * Writes `held`, then what `keySources` hold, `flushChunk` keys a transaction, taking each key's
   * use only as its chunk fills: never one batch of every key, which for 100,000 keys cost tens of
   * megabytes of peak memory. A key read twice (live and retired) may land in two chunks; the
   * stores add counts and keep the later use.
   */
  async #writeChunked(held: Map<string, Pending>, keySources: Iterable<KeyUse>[]): Promise<void> {
    let chunk = new Map<string, Pending>();
    const writeChunk = async () => {
      await this.#write(chunk);
      chunk = new Map();
      await new Promise((resolve) => setImmediate(resolve));
    };
    for (const [id, pending] of held) {
      merge(chunk, id, pending);
      if (chunk.size >= this.#flushChunk) await writeChunk();
    }
    for (const keys of keySources) {
      for (const key of keys) {
        takeInto(chunk, key);
        if (chunk.size >= this.#flushChunk) await writeChunk();
      }
    }
    if (chunk.size > 0) await this.#write(chunk);
  }

  async #write(chunk: ReadonlyMap<string, Pending>): Promise<void> {
    const lastUsed = new Map<string, string>();
    const usage: KeyDayUsage[] = [];
    for (const [keyId, pending] of chunk) {
      if (pending.lastUsedMs !== Number.NEGATIVE_INFINITY) {
        lastUsed.set(keyId, new Date(pending.lastUsedMs).toISOString());
      }
      pending.forEachDay((day, admitted, refused) => {
        usage.push({ keyId, day: dayOf(day), admitted, refused });
      });
    }
    try {
      await this.#store.recordApiKeyUse(lastUsed, usage);
      this.#storeFailing = false;
    } catch (error) {
      this.#storeFailing = true;
      this.#logger.error(
        { err: error },
        'writing API key last-use times and usage failed; kept for the next flush',
      );
      for (const [id, pending] of chunk) merge(this.#pending, id, pending);
    }
  }
}

/** Moves what `key` holds for the store into `batch`. */
function takeInto(batch: Map<string, Pending>, key: KeyUse): void {
  const lastUsedMs = key.takePendingUse();
  let pending = batch.get(key.id);
  key.takePendingCounts((day, admitted, refused) => {
    pending ??= pendingOf(batch, key.id);
    pending.add(day, admitted, refused);
  });
  if (lastUsedMs === undefined) return;
  pending ??= pendingOf(batch, key.id);
  pending.used(lastUsedMs);
}

function pendingOf(batch: Map<string, Pending>, id: string): Pending {
  let pending = batch.get(id);
  if (pending === undefined) {
    pending = new Pending();
    batch.set(id, pending);
  }
  return pending;
}

/** Adds `pending` (of key `id`) to what `into` holds for that key. */
function merge(into: Map<string, Pending>, id: string, pending: Pending): void {
  pendingOf(into, id).merge(pending);
}
