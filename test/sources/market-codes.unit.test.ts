import { describe, expect, it } from 'vitest';
import { parseCatalog } from '../../src/domain/catalog.ts';
import { marketCode, marketRequests } from '../../src/sources/market-codes.ts';
import type { SourceEntry } from '../../src/sources/sources-schema.ts';

const [btc, shib] = parseCatalog([
  { symbol: 'BTC', name_fa: 'بیت‌کوین', name_en: 'Bitcoin', pair: 'BTCUSDT' },
  { symbol: 'SHIB', name_fa: 'شیبا اینو', name_en: 'Shiba Inu', pair: 'SHIBUSDT' },
]) as [
  { symbol: string; name_fa: string; name_en: string; pair: string },
  { symbol: string; name_fa: string; name_en: string; pair: string },
];

const binance: SourceEntry = { name: 'binance', kind: 'binance', url: 'wss://stream.binance.com:9443' };
const nobitex: SourceEntry = { name: 'nobitex', kind: 'nobitex', url: 'https://apiv2.nobitex.ir' };
const wallex: SourceEntry = { name: 'wallex', kind: 'wallex', url: 'https://api.wallex.ir' };
const panel: SourceEntry = {
  name: 'panel',
  kind: 'json-http',
  url: 'https://panel.example/p',
  mapping: { quotes: 'data', key: 's', ask: 'a', currency: 'toman' },
};

describe('marketCode', () => {
  it("names each coin as the source's own API does, by kind", () => {
    expect(marketCode(binance, btc, 'usdt')).toBe('BTCUSDT');
    expect(marketCode(nobitex, btc, 'usdt')).toBe('btc');
    expect(marketCode(nobitex, btc, 'toman')).toBe('btc');
    expect(marketCode(wallex, btc, 'usdt')).toBe('BTCUSDT');
    expect(marketCode(wallex, btc, 'toman')).toBe('BTCTMN');
    expect(marketCode(panel, btc, 'toman')).toBe('BTC');
  });

  it("uses the source's own name of a coin from its symbols entry", () => {
    const renamed = { symbols: { SHIB: '1000shib', BTC: 'XBT' } };
    expect(marketCode({ ...binance, ...renamed }, shib, 'usdt')).toBe('1000SHIBUSDT');
    expect(marketCode({ ...nobitex, ...renamed }, shib, 'toman')).toBe('1000shib');
    expect(marketCode({ ...wallex, ...renamed }, btc, 'toman')).toBe('XBTTMN');
    expect(marketCode({ ...panel, ...renamed }, btc, 'toman')).toBe('XBT');
  });

  it("takes Binance's pair from the catalog, which may differ from SYMBOL + USDT", () => {
    expect(
      marketCode(
        binance,
        { symbol: 'BTTC', name_fa: 'بیت‌تورنت', name_en: 'BitTorrent', pair: 'BTTCUSDT' },
        'usdt',
      ),
    ).toBe('BTTCUSDT');
    expect(
      marketCode(
        binance,
        { symbol: 'LUNC', name_fa: 'لونا', name_en: 'Terra Classic', pair: 'LUNAUSDT' },
        'usdt',
      ),
    ).toBe('LUNAUSDT');
  });
});

describe('marketRequests', () => {
  it('asks for tether even when the catalog does not list it', () => {
    expect(
      marketRequests(
        wallex,
        [
          { symbol: 'USDT', currency: 'toman' },
          { symbol: 'BTC', currency: 'usdt' },
        ],
        new Map([['BTC', btc]]),
      ),
    ).toEqual([
      { symbol: 'USDT', currency: 'toman', market: 'USDTTMN' },
      { symbol: 'BTC', currency: 'usdt', market: 'BTCUSDT' },
    ]);
  });
});

describe('the unit of each market: how many coins one quote prices', () => {
  const catalog = new Map(
    parseCatalog([
      { symbol: 'SHIB', name_fa: 'شیبا اینو', name_en: 'Shiba Inu', pair: 'SHIBUSDT' },
      { symbol: 'PEPE', name_fa: 'پپه', name_en: 'Pepe', pair: 'PEPEUSDT' },
      { symbol: 'FLOKI', name_fa: 'فلوکی', name_en: 'Floki', pair: 'FLOKIUSDT' },
      { symbol: 'BTC', name_fa: 'بیت‌کوین', name_en: 'Bitcoin', pair: 'BTCUSDT' },
    ]).map((coin) => [coin.symbol, coin]),
  );
  const wanted = ['SHIB', 'PEPE', 'FLOKI', 'BTC'].map((symbol) => ({ symbol, currency: 'toman' as const }));

  it("knows Nobitex's bundles: shib a thousand, 1m_pepe a million, 100k_floki a hundred thousand", () => {
    expect(marketRequests(nobitex, wanted, catalog)).toEqual([
      { symbol: 'SHIB', currency: 'toman', market: 'shib', coinsPerQuote: 1_000 },
      { symbol: 'PEPE', currency: 'toman', market: '1m_pepe', coinsPerQuote: 1_000_000 },
      { symbol: 'FLOKI', currency: 'toman', market: '100k_floki', coinsPerQuote: 100_000 },
      { symbol: 'BTC', currency: 'toman', market: 'btc' },
    ]);
  });

  it('reads the bundle from a code the operator names, and coins_per_quote overrides any kind', () => {
    const named: SourceEntry = { ...nobitex, symbols: { SHIB: '1k_shib', PEPE: '1b_pepe' } };
    expect(marketRequests(named, wanted.slice(0, 2), catalog).map((r) => r.coinsPerQuote)).toEqual([
      1_000, 1_000_000_000,
    ]);
    const panelPerThousand: SourceEntry = { ...panel, coins_per_quote: { SHIB: 1000 } };
    expect(marketRequests(panelPerThousand, wanted.slice(0, 1), catalog)).toEqual([
      { symbol: 'SHIB', currency: 'toman', market: 'SHIB', coinsPerQuote: 1_000 },
    ]);
    expect(marketRequests(panel, wanted.slice(0, 1), catalog)[0]?.coinsPerQuote).toBeUndefined();
  });
});
