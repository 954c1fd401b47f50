import type { Catalog } from '../domain/catalog.ts';
import type { QuoteCurrency, SourceName } from '../feeds/types.ts';
import { currenciesOf, routesOf, type SourcesSetup, tetherSymbol } from '../sources/sources-setup.ts';
import { Route, type RouteMove } from './coin-route.ts';
import { type QuotedCoin, SourceAvailability, SourceSeries } from './source-series.ts';

/** A catalog coin's routes: its price in tether and in toman, each from its own list of sources. */
export class CoinRoutes implements QuotedCoin {
  quoted = false;
  readonly usdt: Route;
  readonly toman: Route;

  constructor(
    readonly symbol: string,
    /** The coin's series per route; each series is given the coin, which counts it quoted. */
    seriesOf: (coin: QuotedCoin) => { usdt: SourceSeries[]; toman: SourceSeries[] },
  ) {
    const { usdt, toman } = seriesOf(this);
    this.usdt = new Route(symbol, 'usdt', usdt);
    this.toman = new Route(symbol, 'toman', toman);
  }

  /** A coin with a toman route is published from it first, so that route's source decides. */
  quotedByPreferred(): boolean {
    return (this.toman.series.length > 0 ? this.toman : this.usdt).quotedByPreferred();
  }
}

/** Tether's toman price (usdt_irt) from its own route. */
class TetherRoute implements QuotedCoin {
  quoted = false;
  route: Route;

  constructor(series: (coin: QuotedCoin) => SourceSeries[]) {
    this.route = new Route(tetherSymbol, 'toman', series(this));
  }

  quotedByPreferred(): boolean {
    return this.route.quotedByPreferred();
  }
}

/** The series a source feeds, by currency and symbol: the per-quote lookup. */
interface SeriesBySymbol {
  readonly usdt: Map<string, SourceSeries>;
  readonly toman: Map<string, SourceSeries>;
}

/**
 * Which source prices each coin (design: one price series per coin, currency and source): built
 * once from the sources set-up and the catalog, it holds every series a route needs, finds the
 * series of a quote in two Map lookups, and picks each coin's serving source when asked.
 */
export class CoinRouting {
  /** In file order. */
  readonly sources: readonly SourceAvailability[];
  readonly coins: readonly CoinRoutes[];
  readonly tether: TetherRoute;
  readonly #series = new Map<SourceName, SeriesBySymbol>();
  readonly #timing: { staleMs: number; returnAfterMs: number };
  /** The source last looked up: quotes come in runs from one source, so most lookups are this one. */
  #lastSource: SourceName | null = null;
  #lastSeries: SeriesBySymbol | undefined;

  constructor(setup: SourcesSetup, catalog: Catalog) {
    this.#timing = { staleMs: setup.staleMs, returnAfterMs: setup.returnAfterMs };
    const sources = new Map<
      SourceName,
      { availability: SourceAvailability; quotes: readonly QuoteCurrency[] }
    >();
    setup.sources.forEach((source, order) => {
      sources.set(source.name, {
        availability: new SourceAvailability(source.name, order),
        quotes: currenciesOf(source),
      });
      this.#series.set(source.name, { usdt: new Map(), toman: new Map() });
    });
    this.sources = [...sources.values()].map(({ availability }) => availability);

    const seriesOf = (name: SourceName, currency: QuoteCurrency, symbol: string, coin: QuotedCoin) => {
      const bySymbol = (this.#series.get(name) as SeriesBySymbol)[currency];
      let series = bySymbol.get(symbol);
      if (series === undefined) {
        const source = sources.get(name);
        if (source === undefined) throw new Error(`route names an undeclared source "${name}"`);
        series = new SourceSeries(symbol, currency, source.availability, coin);
        bySymbol.set(symbol, series);
      }
      return series;
    };

    this.tether = new TetherRoute((coin) =>
      routesOf(setup, tetherSymbol).toman.map((name) => {
        const series = seriesOf(name, 'toman', tetherSymbol, coin);
        series.wholeToman = true;
        return series;
      }),
    );
    const coins: CoinRoutes[] = [];
    for (const entry of catalog) {
      if (entry.symbol === tetherSymbol) continue;
      const { symbol } = entry;
      const routes = routesOf(setup, symbol);
      coins.push(
        new CoinRoutes(symbol, (coin) => ({
          usdt: routes.usdt.map((name) => seriesOf(name, 'usdt', symbol, coin)),
          toman: routes.toman.map((name) => {
            const toman = seriesOf(name, 'toman', symbol, coin);
            // A coin priced in toman takes sell_usdt from the same source when it quotes tether too.
            if (sources.get(name)?.quotes.includes('usdt'))
              toman.companion = seriesOf(name, 'usdt', symbol, coin);
            return toman;
          }),
        })),
      );
    }
    this.coins = coins;
    // Each series is checked against the other sources of the same coin in the same currency
    // (docs/sources.md#the-price-guard); a toman source's own tether quote joins the coin's tether ones.
    linkPeers(this.tether.route.series);
    for (const coin of coins) {
      const companions = coin.toman.series.flatMap((toman) => (toman.companion ? [toman.companion] : []));
      linkPeers([...new Set([...coin.usdt.series, ...companions])]);
      linkPeers(coin.toman.series);
    }
  }

  /** Every series holding a unit-sized level now (docs/sources.md#the-price-guard), in source order. */
  held(): SourceSeries[] {
    const held: SourceSeries[] = [];
    for (const bySymbol of this.#series.values()) {
      for (const series of bySymbol.usdt.values()) if (series.held !== null) held.push(series);
      for (const series of bySymbol.toman.values()) if (series.held !== null) held.push(series);
    }
    return held;
  }

  /** The series a quote updates, or undefined when no route asks that source for it. */
  seriesOf(source: SourceName, currency: QuoteCurrency, symbol: string): SourceSeries | undefined {
    let bySymbol: SeriesBySymbol | undefined;
    if (source === this.#lastSource) {
      bySymbol = this.#lastSeries;
    } else {
      bySymbol = this.#series.get(source);
      this.#lastSource = source;
      this.#lastSeries = bySymbol;
    }
    if (bySymbol === undefined) return undefined;
    return (currency === 'usdt' ? bySymbol.usdt : bySymbol.toman).get(symbol);
  }

  /** The source's availability by name, or undefined for a source not in the set-up. */
  availabilityOf(source: SourceName): SourceAvailability | undefined {
    return this.sources.find((candidate) => candidate.name === source);
  }

  /** What each source must follow: every coin and currency some route asks of it, in catalog order. */
  requests(): Map<SourceName, Array<{ symbol: string; currency: QuoteCurrency }>> {
    const requests = new Map<SourceName, Array<{ symbol: string; currency: QuoteCurrency }>>();
    for (const [source, bySymbol] of this.#series) {
      requests.set(
        source,
        [...bySymbol.usdt.values(), ...bySymbol.toman.values()].map(({ symbol, currency }) => ({
          symbol,
          currency,
        })),
      );
    }
    return requests;
  }

  /** Tether and every coin, as the first commit waits for them. */
  quotable(): QuotedCoin[] {
    return [this.tether, ...this.coins];
  }

  /** Picks every coin's serving sources at clock time `now`; returns the coins that moved. */
  select(now: number): RouteMove[] {
    const moves: RouteMove[] = [];
    const timing = this.#timing;
    const tetherMove = this.tether.route.select(now, timing);
    if (tetherMove) moves.push(tetherMove);
    for (const coin of this.coins) {
      const usdt = coin.usdt.select(now, timing);
      if (usdt) moves.push(usdt);
      const toman = coin.toman.select(now, timing);
      if (toman) moves.push(toman);
    }
    return moves;
  }

  /** The set-up's stale time: a series quoted longer ago than this may not serve. */
  get staleMs(): number {
    return this.#timing.staleMs;
  }

  /** Whether a series may serve at `now`, by the set-up's stale time. */
  usable(series: SourceSeries, now: number): boolean {
    return series.usable(now, this.#timing.staleMs);
  }
}

/** Gives each series of one coin in one currency the others as its peers. */
function linkPeers(group: readonly SourceSeries[]): void {
  for (const series of group) series.peers = group.filter((other) => other !== series);
}
