import type { RateLimitDecision, RateLimiter } from './types.ts';

/** Slots a ring starts with; it grows (doubling) only as admissions within one window need. */
const initialSlots = 4;

/** Keys a sweep visits per decision (docs/decisions/0037-background-work-in-small-steps.md). */
const sweepBatch = 1000;

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
 *
 * One plain array of doubles per key, its first two slots the ring's head and size, the rest the
 * admission times: with 100,000 keys in use every byte per key counts, and an object holding the
 * array and the two numbers took 56 of a ring's ~136 bytes (a typed array would take three times
 * a small plain array's memory). Growing or shrinking makes a new array: the functions that may
 * do so return the ring to keep.
 */
type AdmissionRing = number[];

const headSlot = 0;
const sizeSlot = 1;
const firstStampSlot = 2;

/** A ring of `capacity` slots, filled with a double so V8 keeps them as unboxed 8-byte doubles from the start. */
function emptyRing(capacity: number): AdmissionRing {
  const ring = new Array<number>(firstStampSlot + capacity).fill(0.5);
  ring[headSlot] = 0;
  ring[sizeSlot] = 0;
  return ring;
}

function capacityOf(ring: AdmissionRing): number {
  return ring.length - firstStampSlot;
}

function sizeOf(ring: AdmissionRing): number {
  return ring[sizeSlot] as number;
}

/**
 * The slot of the admission `index` (< capacity) places after the oldest. The head and size are
 * read back from a double array as doubles: a remainder of doubles is a call to a C function
 * (fmod), so the wrap is a subtraction.
 */
function slotOf(ring: AdmissionRing, index: number): number {
  const position = (ring[headSlot] as number) + index;
  const capacity = capacityOf(ring);
  return firstStampSlot + (position < capacity ? position : position - capacity);
}

/** The admission `index` places after the oldest. */
function stampAt(ring: AdmissionRing, index: number): number {
  return ring[slotOf(ring, index)] as number;
}

/** The latest admission; a stored ring always holds it (nothing newer than it ever expires first). */
function newestIn(ring: AdmissionRing): number {
  const size = sizeOf(ring);
  return size === 0 ? Number.NEGATIVE_INFINITY : stampAt(ring, size - 1);
}

/** A ring holding one earlier admission at `admittedMs`. */
function ringHolding(admittedMs: number, limit: number): AdmissionRing {
  const ring = emptyRing(Math.min(limit, initialSlots));
  ring[firstStampSlot] = admittedMs;
  ring[sizeSlot] = 1;
  return ring;
}

/**
 * Records an admission at `nowMs` (≥ every earlier one, the admissions that left the window
 * already forgotten) that the caller found room for under `limit`; returns the ring to keep.
 */
function withAdmission(ring: AdmissionRing, nowMs: number, limit: number): AdmissionRing {
  const capacity = capacityOf(ring);
  const size = sizeOf(ring);
  const kept = size === capacity ? reshaped(ring, Math.max(size + 1, Math.min(limit, capacity * 2))) : ring;
  kept[slotOf(kept, size)] = nowMs;
  kept[sizeSlot] = size + 1;
  return kept;
}

/**
 * How many admissions are at or before `cutoffMs`: the oldest ones. A busy key forgets as it goes
 * (`withoutBefore`), so these are nearly always none or one, read at the head: a decision touches
 * the two ends of its ring, where a binary search read a dozen slots, each likely a cache miss
 * when a process tracks thousands of keys. Past a few, the rest is searched.
 */
function countAtOrBefore(ring: AdmissionRing, cutoffMs: number): number {
  const size = sizeOf(ring);
  let low = 0;
  while (low < size && low < 4) {
    if (stampAt(ring, low) > cutoffMs) return low;
    low++;
  }
  let high = size;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (stampAt(ring, middle) > cutoffMs) high = middle;
    else low = middle + 1;
  }
  return low;
}

/**
 * Drops admissions at or before `cutoffMs` and gives back slots no longer needed; returns the ring
 * to keep. They leave from the head, each once: over a key's life this costs one step per admission.
 */
function withoutBefore(ring: AdmissionRing, cutoffMs: number): AdmissionRing {
  const expired = countAtOrBefore(ring, cutoffMs);
  if (expired === 0) return ring;
  const capacity = capacityOf(ring);
  const size = sizeOf(ring) - expired;
  ring[headSlot] = slotOf(ring, expired) - firstStampSlot;
  ring[sizeSlot] = size;
  return capacity > initialSlots && size <= capacity / 4
    ? reshaped(ring, Math.max(initialSlots, size * 2))
    : ring;
}

/** The admissions of `ring`, in order, in a new ring of `capacity` (≥ their number) slots. */
function reshaped(ring: AdmissionRing, capacity: number): AdmissionRing {
  const next = emptyRing(capacity);
  const size = sizeOf(ring);
  for (let index = 0; index < size; index++) next[firstStampSlot + index] = stampAt(ring, index);
  next[sizeSlot] = size;
  return next;
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
 * 100). Most keys of a busy service call a few times a minute, many once, so most keys need no
 * ring. The key's next decision moves it to one.
 */
type Admissions = number | AdmissionRing;

const newestOf = (admissions: Admissions): number =>
  typeof admissions === 'number' ? admissions : newestIn(admissions);

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
      slots += typeof admissions === 'number' ? 1 : capacityOf(admissions);
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
    let ring = typeof tracked === 'number' ? ringHolding(tracked, limit) : tracked;
    const newest = newestIn(ring);
    // A clock that steps back must not reopen slots: time never runs backwards for a key.
    const nowMs = Math.max(requestedNowMs, newest);
    // Admissions a window older than the newest can never count again (no later decision of the
    // key is earlier than its newest admission); those between that and this decision's window
    // do not count now but could for a clock that steps back, so they are only counted out.
    ring = withoutBefore(ring, newest - this.#windowMs);
    const inWindowBefore = sizeOf(ring) - countAtOrBefore(ring, nowMs - this.#windowMs);
    const allowed = inWindowBefore < limit;
    if (allowed && admit) ring = withAdmission(ring, nowMs, limit);
    // Setting a tracked key keeps its place in the map's order (the eviction order).
    if (ring !== tracked) this.#rings.set(key, ring);
    const inWindow = inWindowBefore + (allowed && admit ? 1 : 0);
    // The next slot frees when the in-window count drops below the limit: when the oldest
    // admission leaves, or (after the limit was lowered below the count) the one that many later.
    const freeing =
      inWindow === 0 ? nowMs : stampAt(ring, sizeOf(ring) - inWindow + Math.max(0, inWindow - limit));
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
   * decision: in one go, 100,000 keys would stall the requests waiting behind it
   * (docs/decisions/0037-background-work-in-small-steps.md).
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
      else if (typeof admissions !== 'number') {
        const kept = withoutBefore(admissions, newestIn(admissions) - this.#windowMs);
        if (kept !== admissions) this.#rings.set(key, kept);
      }
    }
  }

  #forgetOldestKey(): void {
    const oldest = this.#rings.keys().next();
    if (!oldest.done) this.#rings.delete(oldest.value);
  }
}
