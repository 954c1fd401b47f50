import { describe, expect, it } from 'vitest';
import { parseNobitexStats } from '../../src/feeds/nobitex-stats.ts';
import type { MarketRequest } from '../../src/feeds/types.ts';
import { createPairMarket, createTetherMarket, seededRandom } from '../../src/simulator/market.ts';
import { formatPrice, quoteIn } from '../../src/simulator/quoted-markets.ts';
import { coinStats } from '../../src/simulator/wire.ts';

const AT = 1_760_000_000_000;
const tether: MarketRequest = { symbol: 'USDT', currency: 'toman', market: 'usdt' };
const btcToman: MarketRequest = { symbol: 'BTC', currency: 'toman', market: 'btc' };
const btcUsdt: MarketRequest = { symbol: 'BTC', currency: 'usdt', market: 'btc' };
const ethUsdt: MarketRequest = { symbol: 'ETH', currency: 'usdt', market: 'eth' };

function body(stats: Record<string, unknown>, status = 'ok'): string {
  return JSON.stringify({ status, stats });
}

function usdtRls(market: Record<string, unknown>, status = 'ok'): string {
  return body({ 'usdt-rls': { isClosed: false, bestBuy: '1050000', ...market } }, status);
}

describe('parseNobitexStats', () => {
  it('converts rial to toman: tether is bestSell ÷ 10', () => {
    expect(parseNobitexStats(usdtRls({ bestSell: '1052990' }), [tether], 'rls', AT)).toEqual({
      kind: 'read',
      quotes: [{ symbol: 'USDT', currency: 'toman', ask: 105299, changePct: null, tickTime: AT }],
      rejected: [],
    });
  });

  it('keeps the fraction of a toman of a coin worth a few rial', () => {
    const text = body({ 'shib-rls': { bestSell: '27.4', dayChange: '-1.5' } });
    const shib: MarketRequest = { symbol: 'SHIB', currency: 'toman', market: 'shib' };
    expect(parseNobitexStats(text, [shib], 'rls', AT)).toMatchObject({
      quotes: [{ symbol: 'SHIB', currency: 'toman', ask: 2.74, changePct: -1.5 }],
    });
  });

  it('reads coins in rial and in tether, with the 24 h change, each from its own market', () => {
    const rls = body({
      'btc-rls': { isClosed: false, bestSell: '102343200000', bestBuy: '102300000000', dayChange: '2.15' },
      'usdt-rls': { isClosed: false, bestSell: '1052990', bestBuy: '1052500' },
    });
    expect(parseNobitexStats(rls, [btcToman, tether], 'rls', AT)).toEqual({
      kind: 'read',
      quotes: [
        { symbol: 'BTC', currency: 'toman', ask: 10_234_320_000, changePct: 2.15, tickTime: AT },
        { symbol: 'USDT', currency: 'toman', ask: 105_299, changePct: null, tickTime: AT },
      ],
      rejected: [],
    });
    const usdt = body({
      'btc-usdt': { isClosed: false, bestSell: '97250.12', bestBuy: '97240', dayChange: '-0.42' },
      'eth-usdt': { isClosed: false, bestSell: '3385.47', bestBuy: '3385.1' },
    });
    expect(parseNobitexStats(usdt, [btcUsdt, ethUsdt], 'usdt', AT)).toMatchObject({
      quotes: [
        { symbol: 'BTC', currency: 'usdt', ask: 97250.12, changePct: -0.42 },
        { symbol: 'ETH', currency: 'usdt', ask: 3385.47, changePct: null },
      ],
    });
  });

  it('quotes the markets it can and rejects the others, each with a reason', () => {
    const text = body({
      'btc-usdt': { isClosed: false, bestSell: '97250.12' },
      'eth-usdt': { isClosed: true, bestSell: '3385.47' },
    });
    const sol: MarketRequest = { symbol: 'SOL', currency: 'usdt', market: 'sol' };
    expect(parseNobitexStats(text, [btcUsdt, ethUsdt, sol], 'usdt', AT)).toMatchObject({
      kind: 'read',
      quotes: [{ symbol: 'BTC', ask: 97250.12 }],
      rejected: ['market-closed', 'market-missing'],
    });
  });

  it.each([
    ['a body that is not JSON', '{"status":"ok","stats":{', 'invalid-json'],
    ['an array', '[]', 'not-an-object'],
    ['a failed status', usdtRls({ bestSell: '1052990' }, 'failed'), 'status-not-ok'],
    ['no stats', JSON.stringify({ status: 'ok' }), 'stats-missing'],
  ])('finds %s unreadable', (_what, text, reason) => {
    expect(parseNobitexStats(text, [tether], 'rls', AT)).toEqual({ kind: 'unreadable', reason });
  });

  it.each([
    ['another market only', body({ 'btc-rls': {} }), 'market-missing'],
    ['a closed market', usdtRls({ bestSell: '1052990', isClosed: true }), 'market-closed'],
    ['no bestSell', usdtRls({}), 'best-sell-missing'],
    ['a numeric bestSell', usdtRls({ bestSell: 1052990 }), 'best-sell-not-a-string'],
    ['an empty bestSell', usdtRls({ bestSell: '' }), 'best-sell-not-a-number'],
    ['a NaN bestSell', usdtRls({ bestSell: 'NaN' }), 'best-sell-not-a-number'],
    ['a zero bestSell', usdtRls({ bestSell: '0' }), 'best-sell-not-positive'],
    ['a negative bestSell', usdtRls({ bestSell: '-1052990' }), 'best-sell-not-positive'],
    ['a malformed dayChange', usdtRls({ bestSell: '1052990', dayChange: 'up' }), 'invalid-day-change'],
  ])('rejects %s', (_what, text, reason) => {
    expect(parseNobitexStats(text, [tether], 'rls', AT)).toEqual({
      kind: 'read',
      quotes: [],
      rejected: [reason],
    });
  });

  it("reads the simulator's independent encoding of coin stats, rial ÷ 10 and tether as is", () => {
    const random = seededRandom(3);
    const market = createPairMarket('BTC', 'BTCUSDT', random, 0);
    const tetherBook = createTetherMarket(1_052_990, random, 0);
    const rial = quoteIn('BTC', market, 'rial', tetherBook);
    const usdt = quoteIn('BTC', market, 'usdt', tetherBook);
    expect(
      parseNobitexStats(body({ 'btc-rls': coinStats(rial, 'none') }), [btcToman], 'rls', AT),
    ).toMatchObject({
      quotes: [{ ask: Number(formatPrice(rial.ask)) / 10, changePct: Number(rial.changePct.toFixed(2)) }],
    });
    expect(
      parseNobitexStats(body({ 'btc-usdt': coinStats(usdt, 'none') }), [btcUsdt], 'usdt', AT),
    ).toMatchObject({
      quotes: [{ ask: Number(formatPrice(usdt.ask)) }],
    });
    expect(
      parseNobitexStats(body({ 'btc-rls': coinStats(rial, 'nan') }), [btcToman], 'rls', AT),
    ).toMatchObject({
      rejected: ['best-sell-not-a-number'],
    });
  });
});
