import type { QuoteCurrency } from '../feeds/types.ts';
import type { SourceSeries } from './source-series.ts';

/** Why a coin moved to another source, for the failover log. */
export interface RouteMove {
  symbol: string;
  currency: QuoteCurrency;
  from: string;
  to: string;
  /** `failover`: the source serving it became unusable; `return`: an earlier one proved itself again. */
  kind: 'failover' | 'return';
  /** Why the source it left could no longer serve it, or that the one it returned to proved itself again. */
  reason: string;
  /** It returned to the first source of its route. */
  toPrimary: boolean;
}

interface RouteTiming {
  staleMs: number;
  returnAfterMs: number;
}

/**
 * The sources of one coin in one currency, in the order the sources file gives them, and which of
 * them serves it now. The first usable source serves; when it becomes unusable (refused, no quote
 * within the stale time, or a unit-sized price held) the coin moves at once to the first usable one; it goes back to an
 * earlier source only once that one has been usable for the return time, so a source that
 * flickers does not drag its coins back and forth. With no source usable, the coin stays where it
 * is and its last price is published (its as_of tells how old it is).
 */
export class Route {
  /** Index in `series` of the source serving the coin; -1 = none has priced it yet. */
  #active = -1;

  constructor(
    readonly symbol: string,
    readonly currency: QuoteCurrency,
    /** One per source of the route, in route order. */
    readonly series: readonly SourceSeries[],
  ) {}

  /** Whether the first source of the route that does not refuse us has quoted the coin since start. */
  quotedByPreferred(): boolean {
    const preferred = this.series.find((series) => !series.source.refused);
    return preferred !== undefined && preferred.heardAt > 0;
  }

  /** The series serving the coin, or null while no source of the route has priced it. */
  current(): SourceSeries | null {
    return this.#active < 0 ? null : (this.series[this.#active] as SourceSeries);
  }

  /**
   * Picks the serving source at clock time `now`; returns the move when the coin left a source that
   * had served it live for a reason to log (not its first pick, nor leaving a price restored at
   * start, nor making way for an earlier source that had only not quoted it yet).
   */
  select(now: number, { staleMs, returnAfterMs }: RouteTiming): RouteMove | null {
    const series = this.series;
    const current = this.current();
    if (current?.usable(now, staleMs)) {
      for (let index = 0; index < this.#active; index++) {
        const earlier = series[index] as SourceSeries;
        if (!earlier.usable(now, staleMs)) continue;
        if (!earlier.mustProveItself()) {
          // It never failed the coin, it had only not quoted it yet (as at start-up): no return to log.
          this.#active = index;
          return null;
        }
        if (now - earlier.usableSince() < returnAfterMs) continue;
        return this.#moveTo(index, 'return', `usable again for ${Math.round(returnAfterMs / 1000)} s`);
      }
      return null;
    }
    for (let index = 0; index < series.length; index++) {
      if (index === this.#active || !(series[index] as SourceSeries).usable(now, staleMs)) continue;
      if (current === null || current.heardAt === 0) {
        this.#active = index;
        return null;
      }
      const reason = current.source.refused
        ? `refused: ${current.source.refusal}`
        : current.held !== null
          ? `price held: ${heldText(current)}`
          : `no quote for more than ${Math.round(staleMs / 1000)} s`;
      return this.#moveTo(index, 'failover', reason);
    }
    // Nothing usable: keep serving the last price; before any, take whatever price there is.
    if (current === null) {
      const priced = series.findIndex((candidate) => candidate.price > 0);
      if (priced >= 0) this.#active = priced;
    }
    return null;
  }

  #moveTo(index: number, kind: RouteMove['kind'], reason: string): RouteMove {
    const from = (this.series[this.#active] as SourceSeries).source.name;
    this.#active = index;
    return {
      symbol: this.symbol,
      currency: this.currency,
      from,
      to: (this.series[index] as SourceSeries).source.name,
      kind,
      reason,
      toPrimary: index === 0,
    };
  }
}

/** A held level in the failover log's words: "BTC at 640000, 10× its last accepted price 64000". */
function heldText(series: SourceSeries): string {
  const held = series.held;
  if (held === null) return '';
  const factor = Number((held.price / held.reference).toPrecision(3));
  const against = held.reason === 'own-price' ? 'its last accepted price' : "the other sources' price";
  return `${held.price} is ${factor}× ${against} ${held.reference}`;
}
