/**
 * What source adapters hand the collector. Adapters parse and validate the upstream wire format
 * (strings to numbers, rial to toman); the collector applies the pricing rules and the jump guard.
 */

/** A source's configured name, e.g. `binance`: health and rejected ticks are counted under it. */
export type SourceName = string;

/** One valid Binance `<pair>@ticker` update (https://developers.binance.com/docs/binance-spot-api-docs/web-socket-streams). */
export interface CoinQuote {
  /** Binance pair, upper case, e.g. `BTCUSDT` (field `s`). */
  pair: string;
  /** Best ask price in USDT (field `a`): the sell side a buyer pays. */
  ask: number;
  /** 24 h price change percent (field `P`), or null when absent. */
  changePct: number | null;
  /** Event time in epoch milliseconds (field `E`). */
  tickTime: number;
  /** The source that sent it: a refused quote is counted against this source. */
  source: SourceName;
}

/** Tether's sell rate in toman, from Nobitex `stats["usdt-rls"].bestSell` ÷ 10. */
export interface TetherQuote {
  toman: number;
  /** When the quote was received, epoch milliseconds (Nobitex stats carry no tick time). */
  tickTime: number;
  /** The source that sent it: a refused quote is counted against this source. */
  source: SourceName;
}

export type ConnectionState = 'connecting' | 'open' | 'stalled' | 'backoff' | 'closed';

export interface FeedListener {
  coinQuote(quote: CoinQuote): void;
  tetherQuote(quote: TetherQuote): void;
  /** A message or field failed validation; `reason` is a short machine label. */
  rejected(source: SourceName, reason: string): void;
  /** Connection state changes, for logs and `/v1/health`. */
  connectionState(source: SourceName, state: ConnectionState, detail: string): void;
}

export interface Feed {
  readonly source: SourceName;
  start(): void;
  /** Closes sockets and timers; resolves when nothing of the feed is left running. */
  stop(): Promise<void>;
}
