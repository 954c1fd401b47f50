import { type DocumentCurrency, documentMarkets } from '../feeds/json-http-mapping.ts';
import { nobitexMarketKeys } from '../feeds/nobitex-stats.ts';
import type { MarketRequest, QuoteCurrency } from '../feeds/types.ts';
import type { SourceEntry } from './sources-schema.ts';

/**
 * How one market a source reads is quoted (docs/sources.md, "The unit of a market"): what the
 * source calls it, the unit its asks come in, and how many coins one ask prices. The feeds turn
 * rial into toman and divide by the coins per quote; `nerkh sources check` prints this so that an
 * operator sees both before the file is deployed.
 */
export interface MarketUnit {
  /** Catalog symbol. */
  symbol: string;
  /** The currency nerkh publishes the market's price in. */
  currency: QuoteCurrency;
  /**
   * The market as the source names it: `btc-rls`, `SHIBTMN`, `BTCUSDT`, `BTC_IRT`. When the source
   * may answer it under another name, each in the order tried, joined by ` or `
   * (`shib-rls or 1k_shib-rls`); empty when the source has no market for it.
   */
  market: string;
  /** The unit of its asks as quoted: `rial` is divided by 10; `toman or rial` when either may be read. */
  quotedIn: string;
  /** How many coins one ask prices: 1 when per coin. */
  coinsPerQuote: number;
}

/** Each market the source reads, named and quoted as the source does. */
function readAs(
  source: SourceEntry,
  request: MarketRequest,
): Array<{ name: string; unit: DocumentCurrency }> {
  switch (source.kind) {
    case 'binance':
      return [{ name: request.market, unit: 'usdt' }];
    case 'nobitex':
      // Nobitex's IRT markets are in rial, whatever their name says (docs/sources.md, "Nobitex").
      return nobitexMarketKeys(request).map((name) => ({
        name,
        unit: request.currency === 'toman' ? 'rial' : 'usdt',
      }));
    case 'wallex':
      // Wallex's TMN markets are in toman, published as quoted (docs/sources.md, "Wallex").
      return [{ name: request.market, unit: request.currency }];
    case 'json-http':
      return documentMarkets(source.mapping, source.url, request.market, request.currency);
  }
}

/** The markets a source's feed takes (`marketRequests`), each with its name, unit and scale. */
export function marketUnits(source: SourceEntry, requests: readonly MarketRequest[]): MarketUnit[] {
  return requests.map((request) => {
    const read = readAs(source, request);
    return {
      symbol: request.symbol,
      currency: request.currency,
      market: read.map(({ name }) => name).join(' or '),
      quotedIn: [...new Set(read.map(({ unit }) => unit))].join(' or '),
      coinsPerQuote: request.coinsPerQuote ?? 1,
    };
  });
}
