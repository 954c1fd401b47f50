import { priceRejection } from '../domain/pricing.ts';
import type { SourceName } from '../feeds/types.ts';
import type { Logger } from '../logger.ts';

/**
 * One price series (a coin's ask, tether's toman rate): the last accepted value, the tick time
 * that moved it (`as_of`), and the candidate level the jump guard is watching. One class so every
 * series has the same shape and the per-tick path stays monomorphic.
 */
export class PriceState {
  /** Last accepted price; 0 = never priced. */
  price = 0;
  /** Tick time of the last tick that moved `price` (the row's as_of); 0 = never. */
  movedAt = 0;
  /** Tick time of the last accepted tick, moved or not. */
  tickTime = 0;
  /** A level beyond the jump guard, held since `candidateSince` over `candidateTicks` ticks. */
  candidate = 0;
  candidateSince = 0;
  candidateTicks = 0;

  /**
   * Starts from a price known before a restart, as if a tick at `asOf` had set it: it is
   * published unchanged until a tick moves it, and guards jumps meanwhile.
   */
  seed(price: number, asOf: number): void {
    this.price = price;
    this.movedAt = asOf;
    this.tickTime = asOf;
  }
}

interface PriceGuardOptions {
  /** A tick further than this from the last accepted price is refused as `absurd-jump`. */
  maxJumpPct: number;
  /**
   * A price beyond the jump guard is accepted once the source has held it (within the guard of
   * itself) for this long and `jumpConfirmTicks` ticks: a level that persists is the market, not
   * a corrupt frame, and without this a series would freeze forever after a real large move (or
   * after a bad first price).
   */
  jumpConfirmMs: number;
  jumpConfirmTicks: number;
  logger: Logger;
}

/**
 * The bad-tick guard: a tick is refused when it is older than the last accepted one, not a
 * positive number, or an absurd jump that the source has not held long enough. The rules are
 * shared; the state is per series, so one guard serves every series.
 */
export class PriceGuard {
  readonly #maxJumpPct: number;
  readonly #confirmMs: number;
  readonly #confirmTicks: number;
  readonly #logger: Logger;

  constructor(options: PriceGuardOptions) {
    this.#maxJumpPct = options.maxJumpPct;
    this.#confirmMs = options.jumpConfirmMs;
    this.#confirmTicks = options.jumpConfirmTicks;
    this.#logger = options.logger;
  }

  /**
   * Applies one tick from `source` to `state`: null when accepted (the price, and its as_of when
   * it moved, are updated), otherwise the reason it was refused (`state` keeps its price).
   */
  apply(state: PriceState, price: number, tickTime: number, source: SourceName): string | null {
    if (tickTime < state.tickTime) return 'stale-tick';
    const previous = state.price > 0 ? state.price : null;
    const rejection = priceRejection(price, previous, this.#maxJumpPct);
    if (rejection !== null) {
      if (rejection !== 'absurd-jump' || !this.#jumpConfirmed(state, price, tickTime)) return rejection;
      this.#logger.warn(
        { source, price, previous, heldMs: tickTime - state.candidateSince },
        'price beyond the jump guard held long enough; accepting it as the new level',
      );
    }
    state.candidate = 0;
    if (price !== state.price) {
      state.price = price;
      state.movedAt = tickTime;
    }
    state.tickTime = tickTime;
    return null;
  }

  #jumpConfirmed(state: PriceState, price: number, tickTime: number): boolean {
    const candidate = state.candidate;
    if (candidate > 0 && (Math.abs(price - candidate) / candidate) * 100 <= this.#maxJumpPct) {
      state.candidateTicks++;
      return state.candidateTicks >= this.#confirmTicks && tickTime - state.candidateSince >= this.#confirmMs;
    }
    state.candidate = price;
    state.candidateSince = tickTime;
    state.candidateTicks = 1;
    return false;
  }
}
