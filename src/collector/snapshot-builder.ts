import type { Config } from '../config.ts';
import { type Catalog, coinUrl } from '../domain/catalog.ts';
import {
  sellIrtFrom,
  sellIrtOfToman,
  sellUsdtFromAsk,
  sellUsdtFromToman,
  tomanWithMarkup,
} from '../domain/pricing.ts';
import type { RateRow, Snapshot, SnapshotDraft } from '../domain/rates.ts';
import { tetherSymbol } from '../sources/sources-setup.ts';
import type { CoinRoutes, CoinRouting } from './coin-routing.ts';
import type { SourceSeries } from './source-series.ts';

interface SnapshotBuilderOptions {
  catalog: Catalog;
  config: Pick<Config, 'NERKH_MARKUP_PCT' | 'markupOverrides' | 'coinUrlTemplate'>;
  /** Each coin's routes and serving sources; the builder reads them, the collector picks them. */
  routing: CoinRouting;
}

/** as_of formatted once per move, at build time, not per tick. */
class AsOfText {
  #text = '';
  #for = 0;

  of(movedAt: number): string {
    if (this.#for !== movedAt) {
      this.#text = new Date(movedAt).toISOString();
      this.#for = movedAt;
    }
    return this.#text;
  }
}

class ListedCoin {
  readonly asOf = new AsOfText();
  /** sell_usdt for the ask `sellUsdtFor` of `sellUsdtOf`, computed once per ask (or restored at start). */
  sellUsdt = 0;
  sellUsdtFor = 0;
  sellUsdtOf: SourceSeries | null = null;
  /** sell_usdt derived from the toman price `derivedFor` and the tether rate `derivedAt`, likewise. */
  derived = 0;
  derivedFor = 0;
  derivedAt = 0;

  constructor(
    readonly symbol: string,
    readonly nameFa: string,
    readonly url: string,
    readonly markupPct: number,
    readonly routes: CoinRoutes,
  ) {}

  /** sell_usdt of a tether ask from `series`, with the markup. */
  sellUsdtOfAsk(series: SourceSeries): number {
    if (this.sellUsdtOf !== series || this.sellUsdtFor !== series.price) {
      this.sellUsdt = sellUsdtFromAsk(series.price, this.markupPct);
      this.sellUsdtFor = series.price;
      this.sellUsdtOf = series;
    }
    return this.sellUsdt;
  }

  /** sell_usdt derived from a toman price with the markup, and the tether rate. */
  derivedSellUsdt(toman: number, usdtIrt: number): number {
    if (this.derivedFor !== toman || this.derivedAt !== usdtIrt) {
      this.derived = sellUsdtFromToman(toman, usdtIrt);
      this.derivedFor = toman;
      this.derivedAt = usdtIrt;
    }
    return this.derived;
  }
}

/** A listed coin's part of its row: what the catalog says of it. */
interface Listing {
  symbol: string;
  nameFa: string;
  url: string;
}

/**
 * Snapshot drafts from the serving sources' prices: a row per priced catalog coin, sorted by
 * symbol, with its markup and its own as_of, a USDT row carrying the tether rate when the catalog
 * lists USDT, and the label of the sources that priced it. Rows are built only when a snapshot is,
 * never per tick.
 *
 * Which price a row shows (docs/sources.md): a coin whose toman route has a usable source is priced
 * in toman by that source (sell_irt its ask with the markup), its sell_usdt from the same source's
 * tether ask, else derived as toman ÷ usdt_irt; otherwise its tether route prices it as nerkh
 * always has (sell_usdt the ask with the markup, sell_irt = sell_usdt × usdt_irt). With no source
 * usable, the last price stays published, toman first. Each row names the source whose series it
 * shows and, when a price was converted through usdt_irt, tether's source (RateRowSchema): names
 * the series already hold, so naming costs a build nothing.
 */
export class SnapshotBuilder {
  /** Sorted by symbol once, so a build needs no sort. */
  readonly #coins: ListedCoin[];
  readonly #routing: CoinRouting;
  readonly #tetherAsOf = new AsOfText();
  /** The catalog's USDT entry, if listed: its row carries the tether rate. */
  readonly #tetherListing: Listing | null;
  /** Rows each source priced in the last count, by its position in the sources file. */
  readonly #served: number[];

  constructor(options: SnapshotBuilderOptions) {
    const { catalog, config, routing } = options;
    const routesOf = new Map(routing.coins.map((coin) => [coin.symbol, coin]));
    const coins: ListedCoin[] = [];
    let tetherListing: Listing | null = null;
    for (const entry of catalog) {
      const url = coinUrl(config.coinUrlTemplate, entry.symbol);
      if (entry.symbol === tetherSymbol) {
        tetherListing = { symbol: entry.symbol, nameFa: entry.name_fa, url };
        continue;
      }
      const markupPct = config.markupOverrides.get(entry.symbol) ?? config.NERKH_MARKUP_PCT;
      const routes = routesOf.get(entry.symbol) as CoinRoutes;
      coins.push(new ListedCoin(entry.symbol, entry.name_fa, url, markupPct, routes));
    }
    this.#coins = coins.sort((a, b) => (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0));
    this.#routing = routing;
    this.#tetherListing = tetherListing;
    this.#served = routing.sources.map(() => 0);
  }

  /** Tether's serving price, or null while no source of its route has priced it. */
  #tether(): SourceSeries | null {
    const series = this.#routing.tether.route.current();
    return series !== null && series.price > 0 ? series : null;
  }

  /**
   * The series whose price a coin's row shows at `now`, or null when the coin has no row: usable
   * toman, usable tether, then the last toman or tether price. A toman price needs usdt_irt for
   * its sell_usdt unless its source quotes the coin in tether too.
   */
  #pricing(coin: ListedCoin, now: number, usdtIrt: number | null): SourceSeries | null {
    const routing = this.#routing;
    const toman = coin.routes.toman.current();
    const usdt = coin.routes.usdt.current();
    const tomanPriced =
      toman !== null &&
      toman.price > 0 &&
      (usdtIrt !== null || (toman.companion !== null && toman.companion.price > 0));
    if (tomanPriced && routing.usable(toman, now)) return toman;
    if (usdt !== null && usdt.price > 0 && routing.usable(usdt, now)) return usdt;
    if (tomanPriced) return toman;
    if (usdt !== null && usdt.price > 0) return usdt;
    return null;
  }

  /** The current prices as a snapshot draft updated at `now` (epoch ms): coins that have a price. */
  build(now: number): SnapshotDraft {
    const tether = this.#tether();
    const usdtIrt = tether === null ? null : tether.price;
    const served = this.#served.fill(0);
    const rates: RateRow[] = [];
    const tetherListing = this.#tetherListing;
    let tetherPending = tetherListing !== null && tether !== null;
    for (const coin of this.#coins) {
      if (tetherPending && tetherListing && tetherListing.symbol < coin.symbol) {
        rates.push(this.#tetherRow(tetherListing, tether as SourceSeries));
        tetherPending = false;
      }
      const series = this.#pricing(coin, now, usdtIrt);
      if (series === null) continue;
      served[series.source.order] = (served[series.source.order] as number) + 1;
      rates.push(
        series.currency === 'toman'
          ? this.#tomanRow(coin, series, tether)
          : this.#usdtRow(coin, series, tether),
      );
    }
    if (tetherPending && tetherListing) rates.push(this.#tetherRow(tetherListing, tether as SourceSeries));
    if (tether !== null && tetherListing !== null)
      served[tether.source.order] = (served[tether.source.order] as number) + 1;
    const label = this.#routing.sources
      .filter((source) => (served[source.order] as number) > 0 || source === tether?.source)
      .map((source) => source.name)
      .join('+');
    return { updated_at: new Date(now).toISOString(), source: label, usdt_irt: usdtIrt, rates };
  }

  /** The source whose price each row shows at `now`, by symbol (the USDT row: tether's source). */
  servedBy(now: number): Map<string, string> {
    const tether = this.#tether();
    const usdtIrt = tether === null ? null : tether.price;
    const served = new Map<string, string>();
    for (const coin of this.#coins) {
      const series = this.#pricing(coin, now, usdtIrt);
      if (series !== null) served.set(coin.symbol, series.source.name);
    }
    if (tether !== null && this.#tetherListing !== null)
      served.set(this.#tetherListing.symbol, tether.source.name);
    return served;
  }

  /** Priced in tether by `series`: sell_irt, when there is one, is converted at tether's rate. */
  #usdtRow(coin: ListedCoin, series: SourceSeries, tether: SourceSeries | null): RateRow {
    const sellUsdt = coin.sellUsdtOfAsk(series);
    const sellIrt = sellIrtFrom(sellUsdt, tether === null ? null : tether.price);
    return rateRow(coin, {
      sell_usdt: sellUsdt,
      sell_irt: sellIrt,
      change_24h: series.change,
      as_of: coin.asOf.of(series.movedAt),
      source: series.source.name,
      tether_source: sellIrt === null || tether === null ? null : tether.source.name,
    });
  }

  /** Priced in toman by `series`: sell_usdt is its own tether ask, else converted at tether's rate. */
  #tomanRow(coin: ListedCoin, series: SourceSeries, tether: SourceSeries | null): RateRow {
    const toman = tomanWithMarkup(series.price, coin.markupPct);
    const companion = series.companion !== null && series.companion.price > 0 ? series.companion : null;
    // #pricing gives a toman price without a tether one only when usdt_irt is known.
    const sellUsdt = companion
      ? coin.sellUsdtOfAsk(companion)
      : coin.derivedSellUsdt(toman, (tether as SourceSeries).price);
    return rateRow(coin, {
      sell_usdt: sellUsdt,
      sell_irt: sellIrtOfToman(toman),
      change_24h: series.change ?? companion?.change ?? null,
      // Both prices shown come from the source: the row moved when either did.
      as_of: coin.asOf.of(companion ? Math.max(series.movedAt, companion.movedAt) : series.movedAt),
      source: series.source.name,
      tether_source: companion ? null : (tether as SourceSeries).source.name,
    });
  }

  /** Tether's row is its toman source's price itself: nothing is converted. */
  #tetherRow(listing: Listing, tether: SourceSeries): RateRow {
    return rateRow(listing, {
      sell_usdt: 1,
      sell_irt: tether.price,
      change_24h: null,
      as_of: this.#tetherAsOf.of(tether.movedAt),
      source: tether.source.name,
      tether_source: null,
    });
  }

  /**
   * Restores the prices of a committed snapshot into the series that would serve each coin first
   * (the first source of each route) where nothing is priced yet, with their as_of, so a source that
   * is down after a restart does not blank coins the previous run had priced. Each is published
   * exactly as stored until a source quotes the coin; meanwhile it guards that source's jumps.
   */
  seed(snapshot: Snapshot): void {
    const bySymbol = new Map<string, ListedCoin>();
    for (const coin of this.#coins) bySymbol.set(coin.symbol, coin);
    const tetherSeries = this.#routing.tether.route.series;
    const tetherPrimary = tetherSeries[0];
    const usdtIrt = snapshot.usdt_irt !== null && snapshot.usdt_irt > 0 ? snapshot.usdt_irt : null;
    for (const row of snapshot.rates) {
      const asOf = Date.parse(row.as_of);
      if (!Number.isFinite(asOf)) continue;
      if (row.symbol === tetherSymbol) {
        // Into the source that priced it, so the row keeps naming it until a source quotes tether.
        const target = seriesNamed(tetherSeries, row.source) ?? tetherPrimary;
        if (usdtIrt !== null && target && target.price === 0) target.seed(usdtIrt, asOf);
        continue;
      }
      const coin = bySymbol.get(row.symbol);
      if (coin === undefined || !(row.sell_usdt > 0)) continue;
      this.#seedCoin(coin, row, asOf, usdtIrt);
    }
    if (tetherPrimary && tetherSeries.every((series) => series.price === 0) && usdtIrt !== null) {
      const asOf = Date.parse(snapshot.updated_at);
      if (Number.isFinite(asOf)) tetherPrimary.seed(usdtIrt, asOf);
    }
  }

  #seedCoin(coin: ListedCoin, row: RateRow, asOf: number, usdtIrt: number | null): void {
    // The store holds prices with the markup; keep publishing exactly those until a quote moves
    // them, and guard jumps against the asks they imply.
    const withoutMarkup = (price: number) =>
      coin.markupPct === 0 ? price : price / (1 + coin.markupPct / 100);
    const seedAsk = (series: SourceSeries) => {
      const ask = withoutMarkup(row.sell_usdt);
      series.seed(ask, asOf);
      series.change = row.change_24h;
      coin.sellUsdt = row.sell_usdt;
      coin.sellUsdtFor = ask;
      coin.sellUsdtOf = series;
    };
    // Into the series of the source the row names (docs/sources.md "What is published"), so the
    // row goes on naming it until a source quotes the coin; a row of an older nerkh, whose source
    // is the snapshot's label, goes to the first source of its route.
    const namedToman = seriesNamed(coin.routes.toman.series, row.source);
    const namedUsdt = seriesNamed(coin.routes.usdt.series, row.source);
    const pricedInToman =
      namedToman !== undefined &&
      (namedUsdt === undefined || row.tether_source === null || namedToman.companion === null);
    const tomanTarget = pricedInToman
      ? namedToman
      : namedUsdt === undefined
        ? coin.routes.toman.series[0]
        : undefined;
    if (tomanTarget !== undefined && row.sell_irt !== null) {
      if (tomanTarget.price !== 0) return;
      tomanTarget.seed(withoutMarkup(row.sell_irt), asOf);
      tomanTarget.change = row.change_24h;
      const companion = tomanTarget.companion;
      if (companion !== null && companion.price === 0) {
        seedAsk(companion);
      } else if (companion === null && usdtIrt !== null) {
        coin.derived = row.sell_usdt;
        coin.derivedFor = tomanWithMarkup(tomanTarget.price, coin.markupPct);
        coin.derivedAt = usdtIrt;
      }
      return;
    }
    const usdtTarget = namedUsdt ?? coin.routes.usdt.series[0];
    if (usdtTarget !== undefined && usdtTarget.price === 0) seedAsk(usdtTarget);
  }
}

/** The series of the source named `name` in a route, if it has one. */
function seriesNamed(series: readonly SourceSeries[], name: string): SourceSeries | undefined {
  return series.find((candidate) => candidate.source.name === name);
}

/** What the prices and their sources make of a row. */
type RowPrices = Pick<
  RateRow,
  'sell_usdt' | 'sell_irt' | 'change_24h' | 'as_of' | 'source' | 'tether_source'
>;

/** The coin's row (RateRowSchema), its fields in the schema's order, which is the order served. */
function rateRow(listing: Listing, prices: RowPrices): RateRow {
  return {
    symbol: listing.symbol,
    name_fa: listing.nameFa,
    sell_usdt: prices.sell_usdt,
    sell_irt: prices.sell_irt,
    change_24h: prices.change_24h,
    as_of: prices.as_of,
    url: listing.url,
    source: prices.source,
    tether_source: prices.tether_source,
  };
}
