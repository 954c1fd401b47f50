import type { RateLimitDecision, RateLimiter } from './types.ts';

/** Slots a ring starts with; it grows (doubling) only as admissions within one window need. */
const initialSlots = 4;

/** Keys a sweep visits per decision (~0.3 ms). */
const sweepBatch = 1000;

/** `count` slots, filled with a double so V8 keeps them as unboxed 8-byte doubles from the start. */
function slots(count: number): number[] {
  return new Array<number>(count).fill(0.5);
}

/**
 * Admission times of one key, oldest first, in a ring. Keeping every admission of the last window
 * is what makes the window exact: a request is admitted only if fewer than `limit` admissions lie
 * inside the window, so no interval of `windowMs` can ever hold `limit + 1` admissions (unlike
 * fixed windows, which admit up to twice the limit across a boundary).
 *
 * The ring's size follows use, not the limit: a key allowed a million requests per window that
 * sends three holds a few slots. Admissions that have left the window are dropped before the ring
 * grows (they can never count again: time never runs backwards for a key), so a ring holds at most
 * about twice the admissions one window ever contained. Every admission still in the window is
 * kept even when the key's limit is lowered, so the count stays exact across an override edit.
 */
class AdmissionRing {
  /**
   * A plain array of doubles: for the few slots most keys need it takes a third of a typed
   * array's memory. With 100,000 keys every byte per key counts.
   */
  stamps: number[];
  head = 0;
  size = 0;

  constructor(limit: number) {
    this.stamps = slots(Math.min(limit, initialSlots));
  }

  /** A ring holding one earlier admission at `admittedMs`. */
  static holding(admittedMs: number, limit: number): AdmissionRing {
    const ring = new AdmissionRing(limit);
    ring.stamps[0] = admittedMs;
    ring.size = 1;
    return ring;
  }

  at(index: number): number {
    return this.stamps[(this.head + index) % this.stamps.length] as number;
  }

  /** The latest admission; a stored ring always holds it (nothing newer than it ever expires first). */
  get newest(): number {
    return this.size === 0 ? Number.NEGATIVE_INFINITY : this.at(this.size - 1);
  }

  /**
   * Records an admission at `nowMs` (≥ every earlier one, the admissions that left the window
   * already forgotten) that the caller found room for under `limit`.
   */
  push(nowMs: number, limit: number): void {
    const capacity = this.stamps.length;
    if (this.size === capacity) this.#reshape(Math.max(this.size + 1, Math.min(limit, capacity * 2)));
    this.stamps[(this.head + this.size) % this.stamps.length] = nowMs;
    this.size++;
  }

  /**
   * How many admissions are at or before `cutoffMs`: the oldest ones. A busy key forgets as it goes
   * (`forgetBefore`), so these are nearly always none or one, read at the head: a decision touches
   * the two ends of its ring, where a binary search read a dozen slots, each likely a cache miss
   * when a process tracks thousands of keys. Past a few, the rest is searched.
   */
  countAtOrBefore(cutoffMs: number): number {
    const size = this.size;
    let low = 0;
    while (low < size && low < 4) {
      if (this.at(low) > cutoffMs) return low;
      low++;
    }
    let high = size;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.at(middle) > cutoffMs) high = middle;
      else low = middle + 1;
    }
    return low;
  }

  /**
   * Drops admissions at or before `cutoffMs` and gives back slots no longer needed. They leave
   * from the head, each once: over a key's life this costs one step per admission.
   */
  forgetBefore(cutoffMs: number): void {
    const expired = this.countAtOrBefore(cutoffMs);
    if (expired === 0) return;
    const capacity = this.stamps.length;
    this.head = (this.head + expired) % capacity;
    this.size -= expired;
    if (capacity > initialSlots && this.size <= capacity / 4) {
      this.#reshape(Math.max(initialSlots, this.size * 2));
    }
  }

  /** Moves the admissions, in order, into a ring of `capacity` (≥ size) slots. */
  #reshape(capacity: number): void {
    const next = slots(capacity);
    for (let index = 0; index < this.size; index++) next[index] = this.at(index);
    this.stamps = next;
    this.head = 0;
  }
}

interface MemoryRateLimiterOptions {
  windowMs: number;
  /**
   * Bound on tracked keys, so a flood of distinct keys (e.g. client addresses for the failed-key
   * limit) cannot exhaust memory; beyond it the longest-tracked key is forgotten.
   */
  maxKeys?: number;
}

/**
 * A key's admissions in the window: the bare time of its only one (16 bytes), or a ring (about
 * 130). Most keys of a busy service call a few times a minute, many once, so most keys need no
 * ring. The key's next decision moves it to one.
 */
type Admissions = number | AdmissionRing;

const newestOf = (admissions: Admissions): number =>
  typeof admissions === 'number' ? admissions : admissions.newest;

/**
 * Exact rolling-window limiter for one process. Time comes from the caller, so tests use a fake
 * clock. It decides synchronously (the RateLimiter contract allows it), so an authenticated request
 * waits on no promise for its limit.
 */
export class MemoryRateLimiter implements RateLimiter {
  readonly #windowMs: number;
  readonly #maxKeys: number;
  readonly #rings = new Map<string, Admissions>();
  #lastSweepMs = Number.NEGATIVE_INFINITY;
  /** The sweep in progress (a Map iterator stays valid while entries are deleted), or null. */
  #sweeping: MapIterator<[string, Admissions]> | null = null;

  constructor(options: MemoryRateLimiterOptions) {
    this.#windowMs = options.windowMs;
    this.#maxKeys = options.maxKeys ?? 100_000;
  }

  take(key: string, limit: number, nowMs: number): RateLimitDecision {
    return this.#decide(key, limit, nowMs, true);
  }

  peek(key: string, limit: number, nowMs: number): RateLimitDecision {
    return this.#decide(key, limit, nowMs, false);
  }

  async close(): Promise<void> {
    this.#rings.clear();
    this.#sweeping = null;
  }

  /** Keys with admissions still tracked. */
  get trackedKeys(): number {
    return this.#rings.size;
  }

  /** Admission slots currently allocated over all keys: memory follows use, not limits. */
  get allocatedSlots(): number {
    let slots = 0;
    for (const admissions of this.#rings.values())
      slots += typeof admissions === 'number' ? 1 : admissions.stamps.length;
    return slots;
  }

  /** Core of take/peek. */
  #decide(key: string, limit: number, requestedNowMs: number, admit: boolean): RateLimitDecision {
    this.#sweep(requestedNowMs);
    const tracked = this.#rings.get(key);
    if (tracked === undefined) {
      // Nothing admitted for this key in the window (the common case of the failed-key check).
      if (!admit)
        return { allowed: true, limit, remaining: limit - 1, resetSeconds: 0, retryAfterSeconds: 0 };
      // Admitted: the limit is at least 1. Its slot frees when this admission leaves the window.
      if (this.#rings.size >= this.#maxKeys) this.#forgetOldestKey();
      this.#rings.set(key, requestedNowMs);
      const resetSeconds = Math.max(1, Math.ceil(this.#windowMs / 1000));
      return { allowed: true, limit, remaining: limit - 1, resetSeconds, retryAfterSeconds: 0 };
    }
    let ring: AdmissionRing;
    if (typeof tracked === 'number') {
      ring = AdmissionRing.holding(tracked, limit);
      this.#rings.set(key, ring);
    } else {
      ring = tracked;
    }
    // A clock that steps back must not reopen slots: time never runs backwards for a key.
    const nowMs = Math.max(requestedNowMs, ring.newest);
    // Admissions a window older than the newest can never count again (no later decision of the
    // key is earlier than its newest admission); those between that and this decision's window
    // do not count now but could for a clock that steps back, so they are only counted out.
    ring.forgetBefore(ring.newest - this.#windowMs);
    const inWindowBefore = ring.size - ring.countAtOrBefore(nowMs - this.#windowMs);
    const allowed = inWindowBefore < limit;
    if (allowed && admit) ring.push(nowMs, limit);
    const inWindow = inWindowBefore + (allowed && admit ? 1 : 0);
    // The next slot frees when the in-window count drops below the limit: when the oldest
    // admission leaves, or (after the limit was lowered below the count) the one that many later.
    const freeing = inWindow === 0 ? nowMs : ring.at(ring.size - inWindow + Math.max(0, inWindow - limit));
    const secondsUntilSlotFrees =
      inWindow === 0 ? 0 : Math.max(1, Math.ceil((freeing + this.#windowMs - nowMs) / 1000));
    return {
      allowed,
      limit,
      remaining: Math.max(0, limit - inWindow - (allowed && !admit ? 1 : 0)),
      resetSeconds: secondsUntilSlotFrees,
      retryAfterSeconds: allowed ? 0 : secondsUntilSlotFrees,
    };
  }

  /**
   * Once per window, a sweep forgets keys whose every admission has left the window and gives back
   * the slots of keys that were busier earlier than they are now. It goes `sweepBatch` keys per
   * decision: in one go, 100,000 keys would stall the requests waiting behind it for ~30 ms.
   */
  #sweep(nowMs: number): void {
    if (this.#sweeping === null) {
      if (nowMs - this.#lastSweepMs < this.#windowMs) return;
      this.#lastSweepMs = nowMs;
      this.#sweeping = this.#rings.entries();
    }
    for (let step = 0; step < sweepBatch; step++) {
      const next = this.#sweeping.next();
      if (next.done) {
        this.#sweeping = null;
        return;
      }
      const [key, admissions] = next.value;
      if (newestOf(admissions) <= nowMs - this.#windowMs) this.#rings.delete(key);
      // Relative to the ring's own newest admission, which no later request of the key precedes.
      else if (typeof admissions !== 'number') admissions.forgetBefore(admissions.newest - this.#windowMs);
    }
  }

  #forgetOldestKey(): void {
    const oldest = this.#rings.keys().next();
    if (!oldest.done) this.#rings.delete(oldest.value);
  }
}
