import { priceRejection } from '../domain/pricing.ts';
import { median } from '../domain/source-deviation.ts';
import { isUnitSized } from '../domain/unit-sized.ts';
import type { SourceName } from '../feeds/types.ts';
import type { Logger } from '../logger.ts';

/**
 * Why a source's price of a coin is held (docs/sources.md#the-price-guard): a unit-sized move from
 * its own last accepted price (`own-price`), or a first price a unit-sized factor away from the
 * coin's other sources in line (`other-sources`).
 */
export type HoldReason = 'own-price' | 'other-sources';

/** A level the guard refuses to publish until another source or the operator confirms it. */
export interface HeldLevel {
  /** The price the source last quoted at that level. */
  price: number;
  /** What it was compared with: the series' own last price, or the other sources' median. */
  reference: number;
  reason: HoldReason;
  /** Clock time the hold began. */
  since: number;
}

/**
 * One price series (a coin's ask, tether's toman rate, from one source): the last accepted value,
 * the tick time that moved it (`as_of`), the candidate level the jump guard is watching, the
 * latest quote seen (accepted or not, for the other sources' confirmation) and a held level. One
 * class so every series has the same shape and the per-tick path stays monomorphic.
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
  /** The latest valid quote, accepted or not, its tick time and the clock time it came. */
  seen = 0;
  seenTick = 0;
  seenAt = 0;
  /** Set while a unit-sized level waits for confirmation: the series may not serve its coin. */
  held: HeldLevel | null = null;
  /** Clock time the last hold ended; 0 = never held. A series once held must prove itself again. */
  releasedAt = 0;
  /** The other sources' series of the same coin in the same currency (set once by the routing). */
  peers: readonly PriceState[] = [];

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
   * A price beyond the jump guard (short of a unit-sized factor) is accepted once the source has
   * held it (within the guard of itself) for this long and `jumpConfirmTicks` ticks: a level that
   * persists in a coin's only source is the market, not a corrupt frame, and without this a series
   * would freeze forever after a real large move.
   */
  jumpConfirmMs: number;
  jumpConfirmTicks: number;
  /** Another source's quote within this percentage of a new level confirms it at once. */
  maxDeviationPct: number;
  /** Another source's quote older than this (clock time) confirms nothing and is no reference. */
  staleMs: number;
  logger: Logger;
}

/**
 * The bad-tick guard (docs/sources.md#the-price-guard): a tick is refused when it is older than the
 * last accepted one, not a positive number, an absurd jump that neither another source confirms nor
 * the source has held long enough, or a unit-sized move (×10 or more, ÷10 or less, within the
 * deviation limit) that no other source confirms. A unit-sized level is never accepted on time alone: it is held, the routes serve
 * the coin from its next source meanwhile, and it becomes the price only when another source quotes
 * the same level or the operator accepts it (`nerkh prices accept`). The rules are shared; the state
 * is per series, so one guard serves every series.
 */
export class PriceGuard {
  readonly #maxJumpPct: number;
  readonly #confirmMs: number;
  readonly #confirmTicks: number;
  readonly #maxDeviation: number;
  readonly #staleMs: number;
  readonly #logger: Logger;

  constructor(options: PriceGuardOptions) {
    this.#maxJumpPct = options.maxJumpPct;
    this.#confirmMs = options.jumpConfirmMs;
    this.#confirmTicks = options.jumpConfirmTicks;
    this.#maxDeviation = options.maxDeviationPct / 100;
    this.#staleMs = options.staleMs;
    this.#logger = options.logger;
  }

  /**
   * Applies one tick from `source` to `state` at clock time `now`: null when accepted (the price,
   * and its as_of when it moved, are updated), otherwise the reason it was refused (`state` keeps
   * its price; `unit-held` when the level is held).
   */
  apply(state: PriceState, price: number, tickTime: number, source: SourceName, now: number): string | null {
    if (tickTime < state.tickTime) return 'stale-tick';
    const basic = priceRejection(price, null, this.#maxJumpPct);
    if (basic !== null) return basic;
    state.seen = price;
    state.seenTick = tickTime;
    state.seenAt = now;
    const previous = state.price;
    if (previous > 0) {
      if (isUnitSized(price / previous, this.#maxDeviation)) {
        if (!this.#confirmedByOthers(state, price, now, source)) {
          return this.#hold(state, price, previous, 'own-price', now, source);
        }
      } else if (priceRejection(price, previous, this.#maxJumpPct) !== null) {
        if (!this.#confirmedByOthers(state, price, now, source)) {
          if (!this.#jumpConfirmed(state, price, tickTime)) return 'absurd-jump';
          this.#logger.warn(
            { source, price, previous, heldMs: tickTime - state.candidateSince },
            'price beyond the jump guard held long enough; accepting it as the new level',
          );
        }
      }
    } else {
      const reference = this.#inLineReference(state, now);
      if (
        reference !== null &&
        isUnitSized(price / reference, this.#maxDeviation) &&
        !this.#confirmedByOthers(state, price, now, source)
      ) {
        return this.#hold(state, price, reference, 'other-sources', now, source);
      }
    }
    if (state.held !== null)
      this.#released(state, price, source, 'the source quotes its accepted level again');
    accept(state, price, tickTime);
    return null;
  }

  /**
   * Accepts a held level because the operator said so (`nerkh prices accept`): only when the
   * series is held at a level within the deviation limit of `price`, the level the operator saw.
   */
  acceptHeld(state: PriceState, price: number): boolean {
    const held = state.held;
    if (held === null || !this.#near(state.seen, price)) return false;
    accept(state, state.seen, state.seenTick);
    // The operator vouched for it: it serves its coin again at once, without proving itself.
    state.releasedAt = 0;
    return true;
  }

  /** Whether another source's fresh quote is within the deviation limit of `price`. */
  #confirmedByOthers(state: PriceState, price: number, now: number, source: SourceName): boolean {
    let confirmed = false;
    for (const peer of state.peers) {
      if (peer.seenAt === 0 || now - peer.seenAt > this.#staleMs || !this.#near(peer.seen, price)) continue;
      confirmed = true;
      // The source that confirms moved too: its own refused level is the same move, so it is
      // published at the same snapshot instead of waiting out its own guard.
      if (peer.price !== peer.seen && peer.seenTick >= peer.tickTime) {
        if (peer.held !== null)
          this.#released(peer, peer.seen, source, 'another source quotes the same level');
        accept(peer, peer.seen, peer.seenTick);
      }
    }
    if (confirmed && state.price > 0) {
      this.#logger.warn(
        { source, price, previous: state.price },
        'a move beyond the jump guard confirmed by another source; accepting it at once',
      );
    }
    return confirmed;
  }

  /**
   * The level a series' first price is checked against: the median of the other sources' prices
   * that are in line (accepted, not held, quoted within the stale time or restored at start).
   */
  #inLineReference(state: PriceState, now: number): number | null {
    const prices: number[] = [];
    for (const peer of state.peers) {
      if (peer.price > 0 && peer.held === null && (peer.seenAt === 0 || now - peer.seenAt <= this.#staleMs))
        prices.push(peer.price);
    }
    return prices.length === 0 ? null : median(prices);
  }

  #near(a: number, b: number): boolean {
    return Math.abs(a / b - 1) <= this.#maxDeviation;
  }

  #hold(
    state: PriceState,
    price: number,
    reference: number,
    reason: HoldReason,
    now: number,
    source: SourceName,
  ): string {
    const held = state.held;
    if (held === null || !this.#near(held.price, price)) {
      state.held = { price, reference, reason, since: held?.since ?? now };
      if (held === null) {
        this.#logger.warn(
          { source, price, reference, reason, factor: Number((price / reference).toPrecision(3)) },
          'unit-sized price held: not published until another source or the operator confirms it',
        );
      }
    } else {
      held.price = price;
    }
    state.candidate = 0;
    return 'unit-held';
  }

  #released(state: PriceState, price: number, source: SourceName, why: string): void {
    this.#logger.info({ source, price, held: state.held?.price }, `price hold ended: ${why}`);
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

/** Takes `price` at `tickTime` as the series' price; as_of moves only when the price does. */
function accept(state: PriceState, price: number, tickTime: number): void {
  state.candidate = 0;
  if (state.held !== null) {
    state.held = null;
    state.releasedAt = state.seenAt;
  }
  if (price !== state.price) {
    state.price = price;
    state.movedAt = tickTime;
  }
  state.tickTime = tickTime;
}
