import { describe, expect, it } from 'vitest';
import { parseCatalog } from '../../src/domain/catalog.ts';
import type { QuoteCurrency } from '../../src/feeds/types.ts';
import { marketRequests } from '../../src/sources/market-codes.ts';
import { marketUnits } from '../../src/sources/market-units.ts';
import type { SourceEntry } from '../../src/sources/sources-schema.ts';

/** What `nerkh sources check` says of each market a source reads: its name, unit and scale. */

const catalog = new Map(
  parseCatalog([
    { symbol: 'USDT', name_fa: 'تتر', name_en: 'Tether', pair: null },
    { symbol: 'BTC', name_fa: 'بیت‌کوین', name_en: 'Bitcoin', pair: 'BTCUSDT' },
    { symbol: 'SHIB', name_fa: 'شیبا اینو', name_en: 'Shiba Inu', pair: 'SHIBUSDT' },
    { symbol: 'PEPE', name_fa: 'پپه', name_en: 'Pepe', pair: 'PEPEUSDT' },
  ]).map((entry) => [entry.symbol, entry]),
);

/** Each market as [coin/currency, market, quoted in, coins per quote]. */
function unitsOf(source: SourceEntry, wanted: Array<[string, QuoteCurrency]>): string[][] {
  const requests = marketRequests(
    source,
    wanted.map(([symbol, currency]) => ({ symbol, currency })),
    catalog,
  );
  return marketUnits(source, requests).map((unit) => [
    `${unit.symbol}/${unit.currency}`,
    unit.market,
    unit.quotedIn,
    String(unit.coinsPerQuote),
  ]);
}

const both: Array<[string, QuoteCurrency]> = [
  ['USDT', 'toman'],
  ['BTC', 'toman'],
  ['SHIB', 'usdt'],
];

describe('marketUnits', () => {
  it("names Nobitex's markets by their stats key, rial for toman, with its bundles and SHIB's newer name", () => {
    const nobitex: SourceEntry = { name: 'nobitex', kind: 'nobitex', url: 'https://apiv2.nobitex.ir' };
    expect(unitsOf(nobitex, [...both, ['SHIB', 'toman'], ['PEPE', 'usdt']])).toEqual([
      ['USDT/toman', 'usdt-rls', 'rial', '1'],
      ['BTC/toman', 'btc-rls', 'rial', '1'],
      ['SHIB/usdt', 'shib-usdt or 1k_shib-usdt', 'usdt', '1000'],
      ['SHIB/toman', 'shib-rls or 1k_shib-rls', 'rial', '1000'],
      ['PEPE/usdt', '1m_pepe-usdt', 'usdt', '1000000'],
    ]);
  });

  it("takes Wallex's TMN markets as toman and Binance's pairs as tether, scaled by coins_per_quote", () => {
    const wallex: SourceEntry = {
      name: 'wallex',
      kind: 'wallex',
      url: 'https://api.wallex.ir',
      coins_per_quote: { SHIB: 1000 },
    };
    expect(unitsOf(wallex, both)).toEqual([
      ['USDT/toman', 'USDTTMN', 'toman', '1'],
      ['BTC/toman', 'BTCTMN', 'toman', '1'],
      ['SHIB/usdt', 'SHIBUSDT', 'usdt', '1000'],
    ]);
    const binance: SourceEntry = { name: 'binance', kind: 'binance', url: 'wss://stream.binance.com:9443' };
    expect(unitsOf(binance, [['BTC', 'usdt']])).toEqual([['BTC/usdt', 'BTCUSDT', 'usdt', '1']]);
  });

  it('spells a per-market URL’s market as the URL does, with the unit its quote code declares', () => {
    const book = (url: string): SourceEntry => ({
      name: 'book',
      kind: 'json-http',
      url,
      mapping: { ask: { lowest: 'asks', price: 0 }, pair: { suffixes: { IRT: 'toman', USDT: 'usdt' } } },
    });
    expect(unitsOf(book('https://api.bitpin.ir/api/v1/mth/orderbook/{symbol}_{quote}/'), both)).toEqual([
      ['USDT/toman', 'USDT_IRT', 'toman', '1'],
      ['BTC/toman', 'BTC_IRT', 'toman', '1'],
      ['SHIB/usdt', 'SHIB_USDT', 'usdt', '1'],
    ]);
    expect(
      unitsOf(book('https://api1.tabdeal.org/r/api/v1/depth?symbol={symbol}{quote}&limit=1'), both),
    ).toEqual([
      ['USDT/toman', 'USDTIRT', 'toman', '1'],
      ['BTC/toman', 'BTCIRT', 'toman', '1'],
      ['SHIB/usdt', 'SHIBUSDT', 'usdt', '1'],
    ]);
    expect(unitsOf(book('https://x.example/book?base={symbol}&quote={quote}'), [['BTC', 'toman']])).toEqual([
      ['BTC/toman', 'BTC IRT', 'toman', '1'],
    ]);
  });

  it("names a document's markets by its pairs, and every code it may read when it declares two for toman", () => {
    const documented = (mapping: Extract<SourceEntry, { kind: 'json-http' }>['mapping']): SourceEntry => ({
      name: 'doc',
      kind: 'json-http',
      url: 'https://x.example/prices',
      mapping,
    });
    expect(
      unitsOf(
        documented({
          quotes: 'data',
          key: ['base_currency_symbol.en', 'quote_currency_symbol.en'],
          pair: { suffixes: { IRR: 'rial' } },
          ask: 'sell',
        }),
        [['BTC', 'toman']],
      ),
    ).toEqual([['BTC/toman', 'BTC/IRR', 'rial', '1']]);
    expect(
      unitsOf(
        documented({
          quotes: 'data',
          key: 'pair',
          pair: { separator: '-', suffixes: { TMN: 'toman', IRR: 'rial', USDT: 'usdt' } },
          ask: 'sell',
        }),
        [
          ['BTC', 'toman'],
          ['BTC', 'usdt'],
        ],
      ),
    ).toEqual([
      ['BTC/toman', 'BTC-TMN or BTC-IRR', 'toman or rial', '1'],
      ['BTC/usdt', 'BTC-USDT', 'usdt', '1'],
    ]);
    expect(
      unitsOf(documented({ quotes: 'data', key: 'symbol', ask: 'price_buy', currency: 'toman' }), [
        ['BTC', 'toman'],
      ]),
    ).toEqual([['BTC/toman', 'BTC', 'toman', '1']]);
  });
});
