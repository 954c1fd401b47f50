/**
 * What source adapters hand the collector. Adapters parse and validate the upstream wire format
 * (strings to numbers, rial to toman); the collector applies the pricing rules and the jump guard.
 */

/** A source's configured name, e.g. `binance`: health and rejected ticks are counted under it. */
export type SourceName = string;

/** Currency a source quoted a coin in, after unit conversion (rial is turned into toman by the feed). */
export type QuoteCurrency = 'usdt' | 'toman';

/** One valid sell-side (ask) quote of one coin from one source. */
export interface Quote {
  /** The configured source name (e.g. 'binance', 'wallex', 'my-panel'), not the kind. */
  source: SourceName;
  /** Catalog symbol, upper case: 'BTC'; tether itself is 'USDT' (its toman price is usdt_irt). */
  symbol: string;
  currency: QuoteCurrency;
  /** Best ask (lowest sell order) in `currency`: what a buyer pays. Never the bid or last trade. */
  ask: number;
  /** 24 h change in percent, or null when the source gives none. */
  changePct: number | null;
  /** The source's own event time when it gives one, else the receive time; epoch ms. */
  tickTime: number;
}

/** One market a feed must follow: a catalog coin in one currency, under the source's own code. */
export interface MarketRequest {
  /** Catalog symbol, 'BTC'. */
  symbol: string;
  /** The currency the route needs. */
  currency: QuoteCurrency;
  /**
   * The source's market code: binance 'BTCUSDT'; nobitex 'btc' (the dst currency follows from
   * `currency`: usdt or rls); wallex 'BTCTMN' / 'BTCUSDT'; json-http the symbol as the document
   * names it.
   */
  market: string;
  /**
   * How many coins one quote of this market prices: 1 (unset) for most, 1 000 for a market per
   * thousand coins. Asks are divided by it at the feed's edge (`per-coin-listener.ts`).
   */
  coinsPerQuote?: number;
}

export type ConnectionState = 'connecting' | 'open' | 'stalled' | 'backoff' | 'refused' | 'closed';

export interface FeedListener {
  quote(quote: Quote): void;
  /** A message or field failed validation; `reason` is a short machine label. */
  rejected(source: SourceName, reason: string): void;
  /**
   * Connection state changes, for failover, logs and /v1/health. 'refused' = the source refuses us:
   * HTTP 451 or 403, or 3 consecutive 5xx / unparseable bodies; `detail` says which, e.g.
   * "HTTP 451: Service unavailable from a restricted location …". A coin served by a refused
   * source fails over at once.
   */
  connectionState(source: SourceName, state: ConnectionState, detail: string): void;
}

export interface Feed {
  /** Configured source name. */
  readonly source: SourceName;
  start(): void;
  /** Closes sockets and timers; resolves when nothing of the feed is left running. */
  stop(): Promise<void>;
}
