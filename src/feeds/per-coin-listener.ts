/**
 * Prices per one coin, at the feed's edge: some markets quote a bundle of coins (Nobitex's
 * `1m_pepe` prices a million PEPE, its SHIB market a thousand SHIB; docs/sources.md, "The unit
 * of a market"). Each market request says how many coins one quote prices (`coinsPerQuote`), and
 * this listener divides every ask by it before the collector sees it, so nothing downstream can
 * publish a bundle's price as one coin's.
 */
import type { FeedListener, MarketRequest } from './types.ts';

/** `ask ÷ coins` without binary noise: 0.0123 ÷ 1000 is 0.0000123, not 0.000012299999999999999. */
export function perCoin(ask: number, coins: number): number {
  return coins === 1 ? ask : Number((ask / coins).toPrecision(15));
}

/** `listener` with each quote's ask divided by its market's `coinsPerQuote` (1 when unset). */
export function perCoinListener(listener: FeedListener, markets: readonly MarketRequest[]): FeedListener {
  const coins = new Map<string, number>();
  for (const market of markets) {
    const count = market.coinsPerQuote ?? 1;
    if (!Number.isFinite(count) || count <= 0) {
      throw new Error(`${market.symbol} ${market.currency}: coins per quote must be a positive number`);
    }
    if (count !== 1) coins.set(`${market.symbol} ${market.currency}`, count);
  }
  if (coins.size === 0) return listener;
  return {
    quote: (quote) => {
      const count = coins.get(`${quote.symbol} ${quote.currency}`);
      listener.quote(count === undefined ? quote : { ...quote, ask: perCoin(quote.ask, count) });
    },
    rejected: (source, reason) => listener.rejected(source, reason),
    connectionState: (source, state, detail) => listener.connectionState(source, state, detail),
  };
}
