import type { CatalogEntry } from '../domain/catalog.ts';
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
      return base.toLowerCase();
    case 'wallex':
      return `${base.toUpperCase()}${currency === 'usdt' ? 'USDT' : 'TMN'}`;
    case 'json-http':
      return base;
  }
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
    return { symbol, currency, market: marketCode(source, coin, currency) };
  });
}
