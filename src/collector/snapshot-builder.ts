import type { Config } from '../config.ts';
import { type Catalog, coinUrl } from '../domain/catalog.ts';
import { sellIrtFrom, sellUsdtFromAsk } from '../domain/pricing.ts';
import type { RateRow, Snapshot, SnapshotDraft } from '../domain/rates.ts';

/** A price as a snapshot publishes it; what sets it (a source, a restart) is not the builder's concern. */
interface PublishedPrice {
  /** 0 = never priced. */
  readonly price: number;
  /** Epoch milliseconds of the tick that last moved `price`: the row's as_of. */
  readonly movedAt: number;
  /** Restores a price published before a restart, with its as_of. */
  seed(price: number, asOf: number): void;
}

/** A coin's ask in USDT, and the 24 h change quoted with it. */
export interface PublishedCoinPrice extends PublishedPrice {
  change: number | null;
}

interface SnapshotBuilderOptions {
  catalog: Catalog;
  config: Pick<Config, 'NERKH_MARKUP_PCT' | 'markupOverrides' | 'coinUrlTemplate'>;
  /** Tether's sell rate in toman: usdt_irt, the factor of every toman price, and the USDT row. */
  tether: PublishedPrice;
  /** The price published for the catalog coin priced by `pair`; asked once per coin. */
  coinPrice(pair: string): PublishedCoinPrice;
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
  /** sell_usdt (the ask with markup) for the ask `sellUsdtFor`, computed once per ask. */
  sellUsdt = 0;
  sellUsdtFor = 0;

  constructor(
    readonly symbol: string,
    readonly nameFa: string,
    readonly url: string,
    readonly markupPct: number,
    readonly quote: PublishedCoinPrice,
  ) {}
}

interface TetherListing {
  symbol: string;
  nameFa: string;
  url: string;
}

/**
 * Snapshot drafts from the published prices: a row per priced catalog coin, sorted by symbol,
 * with its markup, its toman price from tether's and its own as_of, and a USDT row carrying the
 * tether rate when the catalog lists USDT. Rows are built only when a snapshot is, never per tick.
 */
export class SnapshotBuilder {
  /** Sorted by symbol once, so a build needs no sort. */
  readonly #coins: ListedCoin[];
  readonly #tether: PublishedPrice;
  readonly #tetherAsOf = new AsOfText();
  /** The catalog's USDT entry, if listed: its row carries the tether rate. */
  readonly #tetherListing: TetherListing | null;

  constructor(options: SnapshotBuilderOptions) {
    const { catalog, config } = options;
    const coins: ListedCoin[] = [];
    let tetherListing: TetherListing | null = null;
    for (const entry of catalog) {
      const url = coinUrl(config.coinUrlTemplate, entry.symbol);
      if (entry.pair === null) {
        tetherListing = { symbol: entry.symbol, nameFa: entry.name_fa, url };
        continue;
      }
      const markupPct = config.markupOverrides.get(entry.symbol) ?? config.NERKH_MARKUP_PCT;
      coins.push(new ListedCoin(entry.symbol, entry.name_fa, url, markupPct, options.coinPrice(entry.pair)));
    }
    this.#coins = coins.sort((a, b) => (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0));
    this.#tether = options.tether;
    this.#tetherListing = tetherListing;
  }

  /** The current prices as a snapshot draft updated at `now` (epoch ms): coins that have a price. */
  build(now: number): SnapshotDraft {
    const usdtIrt = this.#tether.price > 0 ? this.#tether.price : null;
    const rates: RateRow[] = [];
    const tetherListing = this.#tetherListing;
    let tetherPending = tetherListing !== null && usdtIrt !== null;
    for (const coin of this.#coins) {
      if (tetherPending && tetherListing && tetherListing.symbol < coin.symbol) {
        rates.push(this.#tetherRow(tetherListing, usdtIrt as number));
        tetherPending = false;
      }
      const quote = coin.quote;
      if (quote.price === 0) continue;
      if (coin.sellUsdtFor !== quote.price) {
        coin.sellUsdt = sellUsdtFromAsk(quote.price, coin.markupPct);
        coin.sellUsdtFor = quote.price;
      }
      rates.push({
        symbol: coin.symbol,
        name_fa: coin.nameFa,
        sell_usdt: coin.sellUsdt,
        sell_irt: sellIrtFrom(coin.sellUsdt, usdtIrt),
        change_24h: quote.change,
        as_of: coin.asOf.of(quote.movedAt),
        url: coin.url,
      });
    }
    if (tetherPending && tetherListing) rates.push(this.#tetherRow(tetherListing, usdtIrt as number));
    return { updated_at: new Date(now).toISOString(), usdt_irt: usdtIrt, rates };
  }

  #tetherRow(listing: TetherListing, usdtIrt: number): RateRow {
    return {
      symbol: listing.symbol,
      name_fa: listing.nameFa,
      sell_usdt: 1,
      sell_irt: usdtIrt,
      change_24h: null,
      as_of: this.#tetherAsOf.of(this.#tether.movedAt),
      url: listing.url,
    };
  }

  /**
   * Restores the prices of a committed snapshot into the prices not set yet, with their as_of,
   * so a source that is down after a restart does not blank coins the previous run had priced.
   * Each is published unchanged until its price moves.
   */
  seed(snapshot: Snapshot): void {
    const bySymbol = new Map<string, ListedCoin>();
    for (const coin of this.#coins) bySymbol.set(coin.symbol, coin);
    const tether = this.#tether;
    for (const row of snapshot.rates) {
      const asOf = Date.parse(row.as_of);
      if (!Number.isFinite(asOf)) continue;
      if (this.#tetherListing && row.symbol === this.#tetherListing.symbol) {
        if (snapshot.usdt_irt !== null && snapshot.usdt_irt > 0 && tether.price === 0) {
          tether.seed(snapshot.usdt_irt, asOf);
        }
        continue;
      }
      const coin = bySymbol.get(row.symbol);
      if (coin === undefined || coin.quote.price !== 0 || !(row.sell_usdt > 0)) continue;
      // The store holds sell_usdt (ask with markup); keep publishing exactly that value until
      // the ask moves, and guard jumps against the ask it implies.
      const ask = coin.markupPct === 0 ? row.sell_usdt : row.sell_usdt / (1 + coin.markupPct / 100);
      coin.quote.seed(ask, asOf);
      coin.quote.change = row.change_24h;
      coin.sellUsdt = row.sell_usdt;
      coin.sellUsdtFor = ask;
    }
    if (tether.price === 0 && snapshot.usdt_irt !== null && snapshot.usdt_irt > 0) {
      const asOf = Date.parse(snapshot.updated_at);
      if (Number.isFinite(asOf)) tether.seed(snapshot.usdt_irt, asOf);
    }
  }
}
