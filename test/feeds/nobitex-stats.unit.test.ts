import { describe, expect, it } from 'vitest';
import { nobitexBackOffMs, parseNobitexStats } from '../../src/feeds/nobitex-stats.ts';
import type { MarketRequest } from '../../src/feeds/types.ts';
import { createPairMarket, createTetherMarket, seededRandom } from '../../src/simulator/market.ts';
import { formatPrice, quoteIn } from '../../src/simulator/quoted-markets.ts';
import { coinStats } from '../../src/simulator/wire.ts';
import { fixture } from '../support/fixtures.ts';

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

describe("parseNobitexStats on Nobitex's own answers (test/fixtures/nobitex)", () => {
  it('publishes the documented btc-rls example: bestSell 749 976 360 rial is 74 997 636 toman, +9.38 %', () => {
    expect(parseNobitexStats(fixture('nobitex/market-stats-btc-rls.json'), [btcToman], AT)).toEqual({
      kind: 'read',
      quotes: [{ symbol: 'BTC', currency: 'toman', ask: 74_997_636, changePct: 9.38, tickTime: AT }],
      rejected: [],
    });
  });

  it('publishes the recorded usdt-rls answer with its placeholders: 27 150 toman, change null and counted', () => {
    // "latest": "0E-10", "dayClose": "0E-10", "dayChange": "-100.00": a change of −100 % computed
    // from a zero close. bestSell "271500" rial is a real order: 27 150 toman.
    expect(
      parseNobitexStats(fixture('nobitex/market-stats-usdt-rls-placeholders.json'), [tether], AT),
    ).toEqual({
      kind: 'read',
      quotes: [{ symbol: 'USDT', currency: 'toman', ask: 27_150, changePct: null, tickTime: AT }],
      rejected: ['day-change-placeholder'],
    });
  });

  it('reads the documented 429 body: backOff 12 s is a 12 000 ms wait', () => {
    expect(nobitexBackOffMs(fixture('nobitex/too-many-requests.json'))).toBe(12_000);
  });
});

describe('nobitexBackOffMs', () => {
  it.each([
    ['a fractional backOff', '{"backOff":"1.5"}', 1_500],
    ['no backOff', '{"status":"failed","code":"TooManyRequests"}', null],
    ['a zero backOff', '{"backOff":0}', null],
    ['a negative backOff', '{"backOff":-3}', null],
    ['not JSON', '<html>429</html>', null],
    ['a backOff of days, capped at an hour', '{"backOff":864000}', 3_600_000],
  ])('reads %s', (_what, text, expected) => {
    expect(nobitexBackOffMs(text)).toBe(expected);
  });
});

describe('parseNobitexStats', () => {
  it('reads both quote currencies from one body, each market under its own key', () => {
    const text = body({
      'btc-rls': { isClosed: false, bestSell: '6543210000', dayChange: '1.25' },
      'btc-usdt': { isClosed: false, bestSell: '97250.12', dayChange: '1.1' },
      'usdt-rls': { isClosed: false, bestSell: '1052990' },
    });
    expect(parseNobitexStats(text, [tether, btcToman, btcUsdt], AT)).toMatchObject({
      quotes: [
        { symbol: 'USDT', currency: 'toman', ask: 105_299 },
        { symbol: 'BTC', currency: 'toman', ask: 654_321_000, changePct: 1.25 },
        { symbol: 'BTC', currency: 'usdt', ask: 97250.12, changePct: 1.1 },
      ],
      rejected: [],
    });
  });

  it.each([
    ['a zero close', { dayClose: '0E-10', latest: '1052990', dayChange: '3.00' }],
    ['a zero last trade', { dayClose: '1052990', latest: '0', dayChange: '3.00' }],
    ['a change of −100 %', { dayClose: '1052990', latest: '1052990', dayChange: '-100.00' }],
  ])('publishes the price but no change from %s, and counts it', (_what, fields) => {
    expect(parseNobitexStats(usdtRls({ bestSell: '1052990', ...fields }), [tether], AT)).toEqual({
      kind: 'read',
      quotes: [{ symbol: 'USDT', currency: 'toman', ask: 105_299, changePct: null, tickTime: AT }],
      rejected: ['day-change-placeholder'],
    });
  });

  it('converts rial to toman: tether is bestSell ÷ 10', () => {
    expect(parseNobitexStats(usdtRls({ bestSell: '1052990' }), [tether], AT)).toEqual({
      kind: 'read',
      quotes: [{ symbol: 'USDT', currency: 'toman', ask: 105299, changePct: null, tickTime: AT }],
      rejected: [],
    });
  });

  it('keeps the fraction of a toman of a coin worth a few rial', () => {
    const text = body({ 'shib-rls': { bestSell: '27.4', dayChange: '-1.5' } });
    const shib: MarketRequest = { symbol: 'SHIB', currency: 'toman', market: 'shib' };
    expect(parseNobitexStats(text, [shib], AT)).toMatchObject({
      quotes: [{ symbol: 'SHIB', currency: 'toman', ask: 2.74, changePct: -1.5 }],
    });
  });

  it('reads coins in rial and in tether, with the 24 h change, each from its own market', () => {
    const rls = body({
      'btc-rls': { isClosed: false, bestSell: '102343200000', bestBuy: '102300000000', dayChange: '2.15' },
      'usdt-rls': { isClosed: false, bestSell: '1052990', bestBuy: '1052500' },
    });
    expect(parseNobitexStats(rls, [btcToman, tether], AT)).toEqual({
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
    expect(parseNobitexStats(usdt, [btcUsdt, ethUsdt], AT)).toMatchObject({
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
    expect(parseNobitexStats(text, [btcUsdt, ethUsdt, sol], AT)).toMatchObject({
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
    expect(parseNobitexStats(text, [tether], AT)).toEqual({ kind: 'unreadable', reason });
  });

  it.each([
    ['another market only', body({ 'btc-rls': {} }), 'market-missing'],
    ['a closed market', usdtRls({ bestSell: '1052990', isClosed: true }), 'market-closed'],
    ['no bestSell', usdtRls({}), 'best-sell-missing'],
    ['a numeric bestSell', usdtRls({ bestSell: 1052990 }), 'best-sell-not-a-string'],
    ['an empty bestSell', usdtRls({ bestSell: '' }), 'best-sell-not-a-number'],
    ['a NaN bestSell', usdtRls({ bestSell: 'NaN' }), 'best-sell-not-a-number'],
    ['a zero bestSell', usdtRls({ bestSell: '0' }), 'best-sell-not-positive'],
    ['the placeholder bestSell 0E-10', usdtRls({ bestSell: '0E-10' }), 'best-sell-not-positive'],
    ['a negative bestSell', usdtRls({ bestSell: '-1052990' }), 'best-sell-not-positive'],
    ['a malformed dayChange', usdtRls({ bestSell: '1052990', dayChange: 'up' }), 'invalid-day-change'],
  ])('rejects %s', (_what, text, reason) => {
    expect(parseNobitexStats(text, [tether], AT)).toEqual({
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
    expect(parseNobitexStats(body({ 'btc-rls': coinStats(rial, 'none') }), [btcToman], AT)).toMatchObject({
      quotes: [{ ask: Number(formatPrice(rial.ask)) / 10, changePct: Number(rial.changePct.toFixed(2)) }],
    });
    expect(parseNobitexStats(body({ 'btc-usdt': coinStats(usdt, 'none') }), [btcUsdt], AT)).toMatchObject({
      quotes: [{ ask: Number(formatPrice(usdt.ask)) }],
    });
    expect(parseNobitexStats(body({ 'btc-rls': coinStats(rial, 'nan') }), [btcToman], AT)).toMatchObject({
      rejected: ['best-sell-not-a-number'],
    });
  });
});
