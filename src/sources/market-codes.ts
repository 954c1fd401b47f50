import type { CatalogEntry } from '../domain/catalog.ts';
import { NOBITEX_CODES, nobitexCoinsPerQuote } from '../feeds/nobitex-markets.ts';
import type { MarketRequest, QuoteCurrency } from '../feeds/types.ts';
import type { SourceEntry } from './sources-schema.ts';

/**
 * The source's own code for a catalog coin in one currency, from what the source calls the coin
 * (its `symbols` entry, else the catalog symbol): Binance's pair (`BTCUSDT`, the catalog's pair
 * by default), Nobitex's lower-case currency (`btc`; the currency picks `-usdt` or `-rls`),
 * Wallex's market (`BTCUSDT`, `BTCTMN`), and for a json-http document the symbol as it names it.
 */
export function marketCode(source: SourceEntry, coin: CatalogEntry, currency: QuoteCurrency): string {
  const named = source.symbols?.[coin.symbol];
  const base = named ?? coin.symbol;
  switch (source.kind) {
    case 'binance':
      return named === undefined && coin.pair !== null ? coin.pair : `${base.toUpperCase()}USDT`;
    case 'nobitex':
      return (named ?? NOBITEX_CODES[coin.symbol] ?? coin.symbol).toLowerCase();
    case 'wallex':
      return `${base.toUpperCase()}${currency === 'usdt' ? 'USDT' : 'TMN'}`;
    case 'json-http':
      return base;
  }
}

/**
 * How many coins one quote of the source's market prices: the source's `coins_per_quote`, else
 * what the kind knows of its exchange (Nobitex's bundles), else 1.
 */
export function coinsPerQuote(source: SourceEntry, symbol: string, market: string): number {
  const configured = source.coins_per_quote?.[symbol];
  if (configured !== undefined) return configured;
  return source.kind === 'nobitex' ? nobitexCoinsPerQuote(market) : 1;
}

/** The requests of one source as its feed takes them, each with the source's market code. */
export function marketRequests(
  source: SourceEntry,
  wanted: ReadonlyArray<{ symbol: string; currency: QuoteCurrency }>,
  catalog: ReadonlyMap<string, CatalogEntry>,
): MarketRequest[] {
  return wanted.map(({ symbol, currency }) => {
    // Tether is asked for even when the catalog does not list it: its toman price is usdt_irt.
    const coin = catalog.get(symbol) ?? { symbol, name_fa: symbol, name_en: symbol, pair: null };
    const market = marketCode(source, coin, currency);
    const coins = coinsPerQuote(source, symbol, market);
    return { symbol, currency, market, ...(coins === 1 ? {} : { coinsPerQuote: coins }) };
  });
}
