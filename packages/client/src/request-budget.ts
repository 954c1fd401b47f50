import type { RateLimitInfo } from './rate-limit-fields.ts';

export interface BudgetOptions {
  /** Requests of each window to leave unused (for other programs sharing the key). Default 0. */
  reserve?: number;
}

/**
 * Keeps a client under its key's quota before the service refuses it. It knows what the last
 * response's RateLimit fields said (`r` left, a slot frees in `t` s) and counts this client's own
 * counted requests over the policy's rolling window (`q` per `w` s); a request either view says
 * would be refused waits, or fails locally. Refused requests never count on the service, so they
 * are not counted here either.
 */
export class RequestBudget {
  readonly #reserve: number;
  #quota: number | null = null;
  #windowMs: number | null = null;
  #remaining: number | null = null;
  #slotFreesAtMs = 0;
  readonly #sentAtMs: number[] = [];

  constructor(options: BudgetOptions = {}) {
    this.#reserve = Math.max(0, Math.floor(options.reserve ?? 0));
  }

  /** Seconds to wait before the next keyed request fits the quota; 0 when it fits now. */
  waitSeconds(nowMs: number): number {
    let untilMs = 0;
    if (this.#remaining !== null && this.#remaining <= this.#reserve && nowMs < this.#slotFreesAtMs) {
      untilMs = this.#slotFreesAtMs;
    }
    if (this.#quota !== null && this.#windowMs !== null) {
      const windowMs = this.#windowMs;
      while (this.#sentAtMs.length > 0 && (this.#sentAtMs[0] ?? 0) <= nowMs - windowMs)
        this.#sentAtMs.shift();
      const allowed = Math.max(0, this.#quota - this.#reserve);
      if (this.#sentAtMs.length >= allowed) {
        const oldestCounted = this.#sentAtMs[this.#sentAtMs.length - allowed] ?? nowMs;
        untilMs = Math.max(untilMs, oldestCounted + windowMs);
      }
    }
    return untilMs > nowMs ? Math.ceil((untilMs - nowMs) / 1000) : 0;
  }

  /** A response the limiter counted (anything but a 429), with its RateLimit fields. */
  recordCounted(info: RateLimitInfo | null, nowMs: number): void {
    this.#sentAtMs.push(nowMs);
    this.#learn(info, nowMs);
  }

  /** A 429: the service counted nothing and admits nothing for `retryAfter` seconds. */
  recordRefused(info: RateLimitInfo | null, retryAfter: number | null, nowMs: number): void {
    this.#learn(info, nowMs);
    this.#remaining = 0;
    this.#slotFreesAtMs = Math.max(this.#slotFreesAtMs, nowMs + (retryAfter ?? 1) * 1000);
  }

  #learn(info: RateLimitInfo | null, nowMs: number): void {
    const policy = info?.policies[0];
    if (policy) {
      this.#quota = policy.quota;
      this.#windowMs = policy.window * 1000;
    }
    const limit = info?.limits[0];
    if (limit) {
      this.#remaining = limit.remaining;
      this.#slotFreesAtMs = nowMs + limit.reset * 1000;
    }
  }
}
