import type { MaybePromise, RateLimitDecision, RateLimiter } from './types.ts';

/**
 * How the instances sharing a throttle tell each other that an address is paused (Redis pub/sub,
 * ./redis/pause-broadcast.ts). Durations are relative, so the instances' clocks never meet.
 */
export interface PauseBroadcast {
  /** Tells every instance that key checks from `address` pause for `ms`. Never throws. */
  publish(address: string, ms: number): void;
  /**
   * Calls `listener` for each pause any instance publishes, and for each pause still in force
   * whenever the channel (re)connects, so a pause published while it was away is not missed.
   */
  listen(listener: (address: string, ms: number) => void): void;
  close(): Promise<void>;
}

interface FailedKeyThrottleOptions {
  /** Counts invalid keys per client address (exact; shared through Redis across instances). */
  failures: RateLimiter;
  broadcast?: PauseBroadcast;
  /** Epoch ms, to place the pauses other instances announce; defaults to Date.now. */
  clock?: () => number;
  /** Bound on remembered pauses, so a flood of addresses cannot exhaust memory. */
  maxAddresses?: number;
}

/**
 * The invalid-key throttle (docs/architecture.md#rate-limit): an address that sent `limit`
 * invalid keys in the window has its key checks paused until the oldest of them leaves it.
 *
 * Failures are counted in the limiter, atomically (in Redis when limits are shared), so no address
 * gets more than `limit` invalid-key answers in any window across every instance. Whether an
 * address is paused is answered from this process's memory, without a round trip: the pause is
 * learnt from this instance's own count (the failure that fills the window, or one refused because
 * it is full), and from the broadcast of the instance that filled it. A valid key from an address
 * paused elsewhere is therefore checked until the broadcast arrives (pub/sub delivers in well under
 * a millisecond; after the channel was lost, until it reconnects and re-reads the pauses in force).
 * A pause lasts whole seconds (the limiter's reset, rounded up), so it errs toward pausing, by
 * under a second.
 */
export class FailedKeyThrottle {
  readonly #failures: RateLimiter;
  readonly #broadcast: PauseBroadcast | undefined;
  readonly #clock: () => number;
  readonly #maxAddresses: number;
  /** address → epoch ms (this process's clock) at which its key checks resume. */
  readonly #pausedUntil = new Map<string, number>();

  constructor(options: FailedKeyThrottleOptions) {
    this.#failures = options.failures;
    this.#broadcast = options.broadcast;
    this.#clock = options.clock ?? Date.now;
    this.#maxAddresses = options.maxAddresses ?? 100_000;
    this.#broadcast?.listen((address, ms) => this.#pause(address, this.#clock() + ms));
  }

  /** Whole seconds until key checks from `address` resume, or 0 when they are not paused. */
  pausedSeconds(address: string, nowMs: number): number {
    const until = this.#pausedUntil.get(address);
    if (until === undefined) return 0;
    if (until <= nowMs) {
      this.#pausedUntil.delete(address);
      return 0;
    }
    return Math.ceil((until - nowMs) / 1000);
  }

  /**
   * Counts one invalid key from `address`. Refused (not counted) when the address already sent
   * `limit` in the window; either way, an address whose window is now full is paused.
   */
  fail(address: string, limit: number, nowMs: number): MaybePromise<RateLimitDecision> {
    const decision = this.#failures.take(address, limit, nowMs);
    if (decision instanceof Promise) return decision.then((taken) => this.#learn(address, nowMs, taken));
    return this.#learn(address, nowMs, decision);
  }

  async close(): Promise<void> {
    this.#pausedUntil.clear();
    await Promise.all([this.#failures.close(), this.#broadcast?.close()]);
  }

  #learn(address: string, nowMs: number, decision: RateLimitDecision): RateLimitDecision {
    if (decision.allowed && decision.remaining === 0) {
      // This failure filled the window: pause here, and tell the others.
      const ms = decision.resetSeconds * 1000;
      this.#pause(address, nowMs + ms);
      this.#broadcast?.publish(address, ms);
    } else if (!decision.allowed) {
      this.#pause(address, nowMs + decision.retryAfterSeconds * 1000);
    }
    return decision;
  }

  #pause(address: string, untilMs: number): void {
    const current = this.#pausedUntil.get(address);
    if (current !== undefined && current >= untilMs) return;
    // Re-inserted, so insertion order stays the order in which pauses end, roughly: the first
    // entry is the one to forget when the bound is reached.
    this.#pausedUntil.delete(address);
    if (this.#pausedUntil.size >= this.#maxAddresses) {
      const oldest = this.#pausedUntil.keys().next();
      if (!oldest.done) this.#pausedUntil.delete(oldest.value);
    }
    this.#pausedUntil.set(address, untilMs);
  }
}
