import { describe, expect, it } from 'vitest';
import type { MarketRequest } from '../../src/feeds/types.ts';
import { parseWallexMarkets } from '../../src/feeds/wallex-markets.ts';
import { createPairMarket, createTetherMarket, seededRandom } from '../../src/simulator/market.ts';
import { formatPrice, quoteIn } from '../../src/simulator/quoted-markets.ts';
import { wallexMarket } from '../../src/simulator/wire.ts';
import { fixture } from '../support/fixtures.ts';

const AT = 1_760_000_000_000;
const btcToman: MarketRequest = { symbol: 'BTC', currency: 'toman', market: 'BTCTMN' };
const btcUsdt: MarketRequest = { symbol: 'BTC', currency: 'usdt', market: 'BTCUSDT' };
const usdtToman: MarketRequest = { symbol: 'USDT', currency: 'toman', market: 'USDTTMN' };

/** A market entry as Wallex documents it (https://api-docs.wallex.ir, "List of market and status"). */
function market(symbol: string, quoteAsset: string, stats: Record<string, unknown>): Record<string, unknown> {
  return {
    symbol,
    baseAsset: symbol.slice(0, -quoteAsset.length),
    baseAssetPrecision: 8,
    quoteAsset,
    quotePrecision: quoteAsset === 'TMN' ? 0 : 2,
    faName: 'بیت کوین - تومان',
    stepSize: 6,
    tickSize: 0,
    minQty: 0.000001,
    minNotional: 100000,
    stats: {
      bidPrice: '1323000001',
      '24h_volume': '0.18734400',
      lastPrice: '1323000001.00000000',
      lastQty: '0.00009200',
      ...stats,
    },
  };
}

function body(symbols: Record<string, unknown>, success = true): string {
  return JSON.stringify({ result: { symbols }, message: 'The operation was successful', success });
}

describe("parseWallexMarkets on the answer Wallex's older docs print (test/fixtures/wallex)", () => {
  const documented = fixture('wallex/markets-btctmn.json');

  it('reads BTCTMN at its askPrice, 1 324 135 008 toman, and its 24h_ch "-3.04" as −3.04 %', () => {
    // Not bidPrice "1323000001", not lastPrice "1323000001.00000000": the ask is what a buyer pays.
    expect(parseWallexMarkets(documented, [btcToman], AT)).toEqual({
      kind: 'read',
      quotes: [{ symbol: 'BTC', currency: 'toman', ask: 1_324_135_008, changePct: -3.04, tickTime: AT }],
      rejected: [],
    });
  });

  it('refuses BTCTMN as a tether market: its quoteAsset is TMN', () => {
    const asTether: MarketRequest = { symbol: 'BTC', currency: 'usdt', market: 'BTCTMN' };
    expect(parseWallexMarkets(documented, [asTether, btcUsdt], AT)).toEqual({
      kind: 'read',
      quotes: [],
      rejected: ['quote-asset-mismatch', 'market-missing'],
    });
  });
});

describe('parseWallexMarkets', () => {
  it('reads askPrice as quoted: TMN markets are toman already, USDT markets tether', () => {
    const text = body({
      BTCTMN: market('BTCTMN', 'TMN', { askPrice: '1324135008', '24h_ch': '-3.04' }),
      BTCUSDT: market('BTCUSDT', 'USDT', { askPrice: '97250.12', '24h_ch': 1.5 }),
      USDTTMN: market('USDTTMN', 'TMN', { askPrice: '105299' }),
    });
    expect(parseWallexMarkets(text, [btcToman, btcUsdt, usdtToman], AT)).toEqual({
      kind: 'read',
      quotes: [
        { symbol: 'BTC', currency: 'toman', ask: 1_324_135_008, changePct: -3.04, tickTime: AT },
        { symbol: 'BTC', currency: 'usdt', ask: 97250.12, changePct: 1.5, tickTime: AT },
        { symbol: 'USDT', currency: 'toman', ask: 105_299, changePct: null, tickTime: AT },
      ],
      rejected: [],
    });
  });

  it('reads the ask, never the bid or the last trade', () => {
    const text = body({
      BTCTMN: market('BTCTMN', 'TMN', { bidPrice: '1000', lastPrice: '1100', askPrice: '1200' }),
    });
    expect(parseWallexMarkets(text, [btcToman], AT)).toMatchObject({ quotes: [{ ask: 1200 }] });
  });

  it.each([
    ['a body that is not JSON', '{"result":', 'invalid-json'],
    ['a list', '[]', 'not-an-object'],
    ['an unsuccessful answer', body({}, false), 'not-successful'],
    ['no symbols', JSON.stringify({ success: true, result: {} }), 'symbols-missing'],
  ])('finds %s unreadable', (_what, text, reason) => {
    expect(parseWallexMarkets(text, [btcToman], AT)).toEqual({ kind: 'unreadable', reason });
  });

  it.each([
    ['a market it does not list', {}, 'market-missing'],
    [
      'a market of another quote asset',
      { BTCTMN: market('BTCTMN', 'USDT', { askPrice: '1' }) },
      'quote-asset-mismatch',
    ],
    ['a market without stats', { BTCTMN: { symbol: 'BTCTMN', quoteAsset: 'TMN' } }, 'stats-missing'],
    ['no askPrice', { BTCTMN: market('BTCTMN', 'TMN', {}) }, 'ask-missing'],
    ['a dash for an askPrice', { BTCTMN: market('BTCTMN', 'TMN', { askPrice: '-' }) }, 'ask-not-a-number'],
    ['a NaN askPrice', { BTCTMN: market('BTCTMN', 'TMN', { askPrice: 'NaN' }) }, 'ask-not-a-number'],
    ['a zero askPrice', { BTCTMN: market('BTCTMN', 'TMN', { askPrice: '0' }) }, 'ask-not-positive'],
    ['a negative askPrice', { BTCTMN: market('BTCTMN', 'TMN', { askPrice: '-5' }) }, 'ask-not-positive'],
    [
      'a malformed 24h_ch',
      { BTCTMN: market('BTCTMN', 'TMN', { askPrice: '1', '24h_ch': 'n/a' }) },
      'invalid-change-pct',
    ],
  ])('rejects %s', (_what, symbols, reason) => {
    expect(parseWallexMarkets(body(symbols), [btcToman], AT)).toEqual({
      kind: 'read',
      quotes: [],
      rejected: [reason],
    });
  });

  it("reads the simulator's independent encoding of Wallex markets, and every price fault it sends", () => {
    const random = seededRandom(3);
    const btc = quoteIn(
      'BTC',
      createPairMarket('BTC', 'BTCUSDT', random, 0),
      'toman',
      createTetherMarket(1_052_990, random, 0),
    );
    const encoded = (fault: 'none' | 'negative' | 'nan' | 'absurd') =>
      body({ BTCTMN: wallexMarket(btc, 'TMN', 'بیت‌کوین', fault) });
    expect(parseWallexMarkets(encoded('none'), [btcToman], AT)).toMatchObject({
      quotes: [
        {
          symbol: 'BTC',
          currency: 'toman',
          ask: Number(formatPrice(btc.ask)),
          changePct: Number(btc.changePct.toFixed(2)),
        },
      ],
    });
    expect(parseWallexMarkets(encoded('negative'), [btcToman], AT)).toMatchObject({
      rejected: ['ask-not-positive'],
    });
    expect(parseWallexMarkets(encoded('nan'), [btcToman], AT)).toMatchObject({
      rejected: ['ask-not-a-number'],
    });
    expect(parseWallexMarkets(encoded('absurd'), [btcToman], AT)).toMatchObject({
      quotes: [{ ask: Number(formatPrice(btc.ask)) * 1000 }],
    });
  });
});
