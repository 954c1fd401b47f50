import { afterEach, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/catalog-file.ts';
import type { Snapshot } from '../../src/domain/rates.ts';
import { type ScriptedAnswer, startAnswerServer } from '../support/answer-server.ts';
import { fixture } from '../support/fixtures.ts';
import { startSourcesPipeline } from '../support/sources-pipeline.ts';

/**
 * The exchanges' own documented and recorded answers (test/fixtures/, each README names its
 * source) through the whole pipeline: adapter → collector → store. The expected rows are worked
 * out by hand from the answers, in the comments.
 */

const catalog = loadCatalog().filter((entry) => entry.symbol === 'USDT' || entry.symbol === 'BTC');

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The first snapshot that prices every coin of `catalog`, with `sourcesText` pointed at `url`. */
async function publishedFrom(sourcesText: string): Promise<Snapshot> {
  const { store } = await startSourcesPipeline({
    catalog,
    sourcesText,
    tuning: { refreshMs: 100, statusIntervalMs: 100, firstCommitGraceMs: 5_000, pollMs: 50, minPollMs: 50 },
    onCleanup: (cleanup) => cleanups.push(cleanup),
  });
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    const latest = await store.snapshots.latestSnapshot();
    if (latest && latest.rates.length === catalog.length) return latest;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('no snapshot priced every coin within 5 s');
}

const rowOf = (snapshot: Snapshot, symbol: string) => snapshot.rates.find((row) => row.symbol === symbol);

describe("published rows from the exchanges' own answers", () => {
  it("Nobitex: the documented btc-rls and the recorded usdt-rls answers, in toman, with Nobitex's placeholders left out", async () => {
    // One /market/stats answer holding the documented btc-rls market and the recorded usdt-rls one
    // (with its "0E-10" placeholders), in Nobitex's envelope with its global block.
    const documented = JSON.parse(fixture('nobitex/market-stats-btc-rls.json'));
    const recorded = JSON.parse(fixture('nobitex/market-stats-usdt-rls-placeholders.json'));
    const body = JSON.stringify({
      status: 'ok',
      stats: { ...documented.stats, ...recorded.stats },
      global: recorded.global,
    });
    const server = await startAnswerServer(() => ({ status: 200, body }));
    const snapshot = await publishedFrom(`sources:
  - { name: nobitex, kind: nobitex, url: "${server.url}" }
routes:
  default: { toman: [nobitex] }
  coins:
    USDT: { toman: [nobitex] }
`);
    // usdt-rls bestSell 271 500 rial ÷ 10 = 27 150 toman.
    expect(snapshot.usdt_irt).toBe(27_150);
    expect(snapshot.source).toBe('nobitex');
    // btc-rls bestSell 749 976 360 rial ÷ 10 = 74 997 636 toman; dayChange "9.38".
    // sell_usdt is derived: 74 997 636 ÷ 27 150 = 2 762.3438…, to 8 significant digits 2 762.3439.
    expect(rowOf(snapshot, 'BTC')).toMatchObject({
      sell_irt: 74_997_636,
      sell_usdt: 2762.3439,
      change_24h: 9.38,
    });
    // Tether: 1 tether, 27 150 toman; its "dayChange": "-100.00" came from a "0E-10" close: null.
    expect(rowOf(snapshot, 'USDT')).toMatchObject({ sell_irt: 27_150, sell_usdt: 1, change_24h: null });
    // One request for every market of both quote currencies: the collector asks a toman source for
    // tether prices too, and no code is named, so none Nobitex does not list can fail the rest.
    expect(server.seen[0]?.url).toBe('/market/stats?dstCurrency=rls,usdt');
  });

  it("Wallex: with /v1/markets gone, tether's toman price from the documented sell orders' lowest, 82 066", async () => {
    const [, sellOrders] = JSON.parse(fixture('wallex/sell-depth-usdttmn-socket.json')) as [
      string,
      unknown[],
    ];
    const book = (ask: unknown[]) =>
      JSON.stringify({ result: { ask, bid: [] }, message: 'عملیات موفقیت‌آمیز بود.', success: true });
    const server = await startAnswerServer((_index, url): ScriptedAnswer => {
      if (url.startsWith('/v1/markets')) return { status: 404, body: '{"success":false,"result":{}}' };
      if (url === '/v1/depth?symbol=USDTTMN') return { status: 200, body: book(sellOrders) };
      if (url === '/v1/depth?symbol=BTCTMN') {
        // BTC's book in toman: the lowest sell order is what a buyer pays.
        return {
          status: 200,
          body: book([
            { price: '6543215000', quantity: '0.2', sum: '1308643000' },
            { price: '6543210000', quantity: '0.01', sum: '65432100' },
          ]),
        };
      }
      // BTCUSDT (the collector asks a toman source for tether prices too): the documented empty book.
      return { status: 200, body: fixture('wallex/depth-usdcusdt.json') };
    });
    const snapshot = await publishedFrom(`sources:
  - { name: wallex, kind: wallex, url: "${server.url}" }
routes:
  default: { toman: [wallex] }
  coins:
    USDT: { toman: [wallex] }
`);
    // The lowest of 82 131, 82 083 and 82 066 toman.
    expect(snapshot.usdt_irt).toBe(82_066);
    // BTC 6 543 210 000 toman as quoted (no ÷ 10); no tether ask (an empty book), so sell_usdt is
    // derived: 6 543 210 000 ÷ 82 066 = 79 731.0701…, to 8 significant digits 79 731.07.
    expect(rowOf(snapshot, 'BTC')).toMatchObject({
      sell_irt: 6_543_210_000,
      sell_usdt: 79731.07,
      change_24h: null,
    });
  });

  it("Binance: the documented REST 24 h ticker's askPrice in tether, toman derived from Nobitex's recorded tether", async () => {
    // The documented answer is for BNBBTC; the same body under BTCUSDT, the pair nerkh follows.
    const ticker = fixture('binance/ticker-24hr-full-bnbbtc.json').replaceAll('BNBBTC', 'BTCUSDT');
    const binance = await startAnswerServer(() => ({ status: 200, body: ticker }));
    const nobitex = await startAnswerServer(() => ({
      status: 200,
      body: fixture('nobitex/market-stats-usdt-rls-placeholders.json'),
    }));
    // Nothing listens on port 1: the stream never opens, the REST bootstrap alone prices BTC.
    const snapshot = await publishedFrom(`sources:
  - { name: binance, kind: binance, url: "ws://127.0.0.1:1", rest_url: "${binance.url}" }
  - { name: nobitex, kind: nobitex, url: "${nobitex.url}" }
routes:
  default: { usdt: [binance] }
  coins:
    USDT: { toman: [nobitex] }
`);
    // askPrice "4.00000200" → sell_usdt 4.000002; priceChangePercent "-95.960" → −95.96.
    // sell_irt = round(4.000002 × 27 150) = round(108 600.0543) = 108 600.
    expect(rowOf(snapshot, 'BTC')).toMatchObject({
      sell_usdt: 4.000002,
      sell_irt: 108_600,
      change_24h: -95.96,
    });
    expect(snapshot.usdt_irt).toBe(27_150);
  });
});
