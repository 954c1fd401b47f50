import { describe, expect, it } from 'vitest';
import { CatalogError, coinUrl, parseCatalog } from '../../src/domain/catalog.ts';

const btc = { symbol: 'BTC', name_fa: 'بیت‌کوین', name_en: 'Bitcoin', pair: 'BTCUSDT' };

describe('parseCatalog', () => {
  it('accepts coins with a Binance USDT pair and tether without one', () => {
    expect(parseCatalog([btc, { symbol: 'USDT', name_fa: 'تتر', name_en: 'Tether', pair: null }])).toEqual([
      btc,
      { symbol: 'USDT', name_fa: 'تتر', name_en: 'Tether', pair: null },
    ]);
    expect(parseCatalog([{ symbol: 'USDT', name_fa: 'تتر', name_en: 'Tether' }])).toEqual([
      { symbol: 'USDT', name_fa: 'تتر', name_en: 'Tether', pair: null },
    ]);
  });

  it.each([
    ['not an array', { BTC: btc }, 'catalog must be a JSON array of {symbol, name_fa, name_en, pair}'],
    ['empty', [], 'catalog is empty'],
    ['entry not an object', [btc, 'ETH'], 'catalog entry #1 is not an object'],
    ['bad symbol', [{ ...btc, symbol: 'btc' }], 'catalog entry #0 (btc): symbol must match'],
    ['missing symbol', [{ name_fa: 'اتریوم', pair: 'ETHUSDT' }], 'catalog entry #0: symbol must match'],
    [
      'Latin name',
      [btc, { symbol: 'ETH', name_fa: 'Ethereum', name_en: 'Ethereum', pair: 'ETHUSDT' }],
      'catalog entry #1 (ETH): name_fa',
    ],
    [
      'missing English name',
      [btc, { symbol: 'ETH', name_fa: 'اتریوم', pair: 'ETHUSDT' }],
      'catalog entry #1 (ETH): name_en must be',
    ],
    ['Persian English name', [{ ...btc, name_en: 'بیت‌کوین' }], 'catalog entry #0 (BTC): name_en must be'],
    [
      'missing pair',
      [btc, { symbol: 'ETH', name_fa: 'اتریوم', name_en: 'Ethereum' }],
      'catalog entry #1 (ETH): pair must be',
    ],
    [
      'non-USDT pair',
      [{ ...btc, pair: 'BTCBUSD' }],
      'catalog entry #0 (BTC): pair must be a Binance USDT pair',
    ],
    [
      'USDT with a pair',
      [{ symbol: 'USDT', name_fa: 'تتر', name_en: 'Tether', pair: 'USDTUSDT' }],
      'catalog entry #0 (USDT): USDT',
    ],
    ['duplicate symbol', [btc, { ...btc, pair: 'XBTUSDT' }], 'catalog entry #1 (BTC): duplicate symbol'],
    ['duplicate pair', [btc, { ...btc, symbol: 'XBT' }], 'catalog entry #1 (XBT): duplicate pair BTCUSDT'],
  ])('refuses %s, naming the bad entry', (_case, data, message) => {
    expect(() => parseCatalog(data)).toThrow(CatalogError);
    expect(() => parseCatalog(data)).toThrow(message);
  });
});

describe('coinUrl', () => {
  it('fills the symbol into the template', () => {
    expect(coinUrl('https://rates.example/coins/{symbol}', 'BTC')).toBe('https://rates.example/coins/BTC');
    expect(coinUrl('https://x.example/{symbol}?s={symbol}', '1INCH')).toBe('https://x.example/1INCH?s=1INCH');
  });
});
