import type { QuoteCurrency, SourceName } from '../feeds/types.ts';
import { PriceState } from './price-guard.ts';

/**
 * Whether a source will talk to us at all: a source that refuses (HTTP 451 or 403, repeated 5xx
 * or unparseable bodies) serves no coin until it answers properly again.
 */
export class SourceAvailability {
  refused = false;
  /** The source's own words for the refusal, e.g. "HTTP 451: Service unavailable from a restricted location". */
  refusal = '';
  /** Clock time it last stopped refusing; 0 = it has not refused since start. */
  servingSince = 0;

  constructor(
    readonly name: SourceName,
    /** Position in the sources file: labels and counts list sources in this order. */
    readonly order: number,
  ) {}

  /** Whether it has refused since start: a source that never failed need not prove itself again. */
  get everRefused(): boolean {
    return this.refused || this.servingSince > 0;
  }
}

/**
 * The one coin this series prices, as the first commit waits for it: the first snapshot is made
 * once every coin is quoted by the source that will serve it (or when a grace time ends).
 */
export interface QuotedCoin {
  /** Counted as quoted already. */
  quoted: boolean;
  /** Whether the first source of its route that does not refuse us has quoted it. */
  quotedByPreferred(): boolean;
}

/**
 * One coin's price in one currency from one source: the price guard's state, plus when the source
 * last quoted it, which decides whether the source may serve the coin (it is stale after the
 * configured time) and when it may take the coin back (after a gap, only once it has quoted
 * without one for the return time).
 */
export class SourceSeries extends PriceState {
  change: number | null = null;
  /** Clock time of the last accepted quote; 0 = none since start (a price seeded from the store is not one). */
  heardAt = 0;
  /** Clock time since which quotes have come without a gap longer than the stale time. */
  freshSince = 0;
  /** A gap longer than the stale time came after the first quote: the source must prove itself again. */
  lapsed = false;
  /** Of a toman price: the same source's tether price of the coin, when its kind quotes one. */
  companion: SourceSeries | null = null;
  /** Tether's toman price: kept as the whole toman usdt_irt publishes. */
  wholeToman = false;

  constructor(
    readonly symbol: string,
    readonly currency: QuoteCurrency,
    readonly source: SourceAvailability,
    readonly coin: QuotedCoin,
  ) {
    super();
  }

  /** Records an accepted quote at clock time `now`; true when it is the series' first since start. */
  heard(now: number, staleMs: number): boolean {
    const first = this.heardAt === 0;
    if (now - this.heardAt > staleMs) {
      this.freshSince = now;
      if (!first) this.lapsed = true;
    }
    this.heardAt = now;
    return first;
  }

  /**
   * May serve the coin at `now`: priced, its source not refusing, quoted within the stale time, and
   * no unit-sized level held (docs/sources.md#the-price-guard): the next source of the route serves it.
   */
  usable(now: number, staleMs: number): boolean {
    return (
      this.price > 0 &&
      this.held === null &&
      !this.source.refused &&
      this.heardAt > 0 &&
      now - this.heardAt <= staleMs
    );
  }

  /** Since when it has been usable without a break (call only when it is usable). */
  usableSince(): number {
    return Math.max(this.freshSince, this.source.servingSince, this.releasedAt);
  }

  /** A source that has never failed this coin takes it as soon as it is usable; others wait. */
  mustProveItself(): boolean {
    return this.lapsed || this.releasedAt > 0 || this.source.everRefused;
  }
}
