import type { RateLimitDecision, RateLimiter } from './types.ts';

/**
 * Admission times of one key, oldest first, in a ring of `limit` slots. Keeping exactly the last
 * `limit` admissions is what makes the window exact: a request is admitted only if the oldest of
 * them is at least a full window old, so no interval of `windowMs` can ever hold `limit + 1`
 * admissions (unlike fixed windows, which admit up to twice the limit across a boundary).
 */
class AdmissionRing {
  stamps: Float64Array;
  head = 0;
  size = 0;
  newest = Number.NEGATIVE_INFINITY;

  constructor(capacity: number) {
    this.stamps = new Float64Array(capacity);
  }

  at(index: number): number {
    return this.stamps[(this.head + index) % this.stamps.length] as number;
  }

  /** Keeps the newest admissions when a key's limit changes (a per-key override was edited). */
  resize(capacity: number): void {
    const keep = Math.min(this.size, capacity);
    const next = new Float64Array(capacity);
    for (let index = 0; index < keep; index++) next[index] = this.at(this.size - keep + index);
    this.stamps = next;
    this.head = 0;
    this.size = keep;
  }

  push(nowMs: number): void {
    const capacity = this.stamps.length;
    if (this.size < capacity) {
      this.stamps[(this.head + this.size) % capacity] = nowMs;
      this.size++;
    } else {
      this.stamps[this.head] = nowMs;
      this.head = (this.head + 1) % capacity;
    }
    this.newest = nowMs;
  }

  /** Index of the first admission still inside the window ending at `nowMs` (binary search). */
  firstInWindow(nowMs: number, windowMs: number): number {
    let low = 0;
    let high = this.size;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.at(middle) > nowMs - windowMs) high = middle;
      else low = middle + 1;
    }
    return low;
  }
}

export interface MemoryRateLimiterOptions {
  windowMs: number;
  /**
   * Bound on tracked keys, so a flood of distinct keys (e.g. client addresses for the failed-key
   * limit) cannot exhaust memory; beyond it the longest-tracked key is forgotten.
   */
  maxKeys?: number;
}

/** Exact rolling-window limiter for one process. Time comes from the caller, so tests use a fake clock. */
export class MemoryRateLimiter implements RateLimiter {
  readonly #windowMs: number;
  readonly #maxKeys: number;
  readonly #rings = new Map<string, AdmissionRing>();
  #lastSweepMs = Number.NEGATIVE_INFINITY;

  constructor(options: MemoryRateLimiterOptions) {
    this.#windowMs = options.windowMs;
    this.#maxKeys = options.maxKeys ?? 100_000;
  }

  async take(key: string, limit: number, nowMs: number): Promise<RateLimitDecision> {
    return this.decide(key, limit, nowMs, true);
  }

  async peek(key: string, limit: number, nowMs: number): Promise<RateLimitDecision> {
    return this.decide(key, limit, nowMs, false);
  }

  async close(): Promise<void> {
    this.#rings.clear();
  }

  /** Synchronous core of take/peek (also what the in-process tests drive). */
  decide(key: string, limit: number, requestedNowMs: number, admit: boolean): RateLimitDecision {
    this.#sweep(requestedNowMs);
    let ring = this.#rings.get(key);
    if (ring === undefined) {
      ring = new AdmissionRing(limit);
      if (admit) {
        if (this.#rings.size >= this.#maxKeys) this.#forgetOldestKey();
        this.#rings.set(key, ring);
      }
    } else if (ring.stamps.length !== limit) {
      ring.resize(limit);
    }
    // A clock that steps back must not reopen slots: time never runs backwards for a key.
    const nowMs = Math.max(requestedNowMs, ring.newest);
    const allowed = ring.size < limit || ring.at(0) <= nowMs - this.#windowMs;
    if (allowed && admit) ring.push(nowMs);
    const first = ring.firstInWindow(nowMs, this.#windowMs);
    const inWindow = ring.size - first;
    const secondsUntilSlotFrees =
      inWindow === 0 ? 0 : Math.max(1, Math.ceil((ring.at(first) + this.#windowMs - nowMs) / 1000));
    return {
      allowed,
      limit,
      remaining: Math.max(0, limit - inWindow - (allowed && !admit ? 1 : 0)),
      resetSeconds: secondsUntilSlotFrees,
      retryAfterSeconds: allowed ? 0 : secondsUntilSlotFrees,
    };
  }

  /** Once per window, forgets keys whose every admission has left the window. */
  #sweep(nowMs: number): void {
    if (nowMs - this.#lastSweepMs < this.#windowMs) return;
    this.#lastSweepMs = nowMs;
    for (const [key, ring] of this.#rings) {
      if (ring.newest <= nowMs - this.#windowMs) this.#rings.delete(key);
    }
  }

  #forgetOldestKey(): void {
    const oldest = this.#rings.keys().next();
    if (!oldest.done) this.#rings.delete(oldest.value);
  }
}
