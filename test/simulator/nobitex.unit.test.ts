import { describe, expect, it } from 'vitest';
import { nobitexBackOffMs, parseNobitexStats } from '../../src/feeds/nobitex-stats.ts';
import type { MarketRequest } from '../../src/feeds/types.ts';
import { fixture } from '../support/fixtures.ts';
import { startSimulator } from '../support/simulator.ts';

const btcToman: MarketRequest = { symbol: 'BTC', currency: 'toman', market: 'btc' };
const tether: MarketRequest = { symbol: 'USDT', currency: 'toman', market: 'usdt' };

/** The keys of an object, and of each object in it, as a sorted list of paths. */
function shape(value: unknown, prefix = ''): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [prefix];
  return Object.entries(value)
    .flatMap(([key, inner]) => shape(inner, `${prefix}/${key}`))
    .sort();
}

describe("Nobitex market stats, against Nobitex's own answers", () => {
  it("answers with the documented example's shape, envelope and global block included, and the same parser reads both", async () => {
    const sim = await startSimulator();
    const text = await (
      await fetch(`${sim.nobitexBaseUrl}/market/stats?srcCurrency=btc&dstCurrency=rls`)
    ).text();
    const documented = JSON.parse(fixture('nobitex/market-stats-btc-rls.json')) as {
      stats: Record<string, unknown>;
    };
    const recorded = JSON.parse(fixture('nobitex/market-stats-usdt-rls-placeholders.json')) as Record<
      string,
      unknown
    >;
    const body = JSON.parse(text) as {
      status: string;
      stats: Record<string, unknown>;
      global: { binance: Record<string, unknown> };
    };
    expect(Object.keys(body)).toEqual(Object.keys(recorded));
    expect(shape(body.stats['btc-rls'])).toEqual(shape(documented.stats['btc-rls']));
    expect(typeof body.global.binance.btc).toBe('number');
    const at = Date.now();
    expect(parseNobitexStats(text, [btcToman], at)).toEqual({
      kind: 'read',
      quotes: [
        {
          symbol: 'BTC',
          currency: 'toman',
          ask: Number(sim.tomanAskOf('BTC')),
          changePct: expect.any(Number),
          tickTime: at,
        },
      ],
      rejected: [],
    });
    expect(parseNobitexStats(fixture('nobitex/market-stats-btc-rls.json'), [btcToman], at)).toMatchObject({
      kind: 'read',
      rejected: [],
    });
  });

  it("rate-limits with Nobitex's documented 429: backOff in the body, no Retry-After", async () => {
    const sim = await startSimulator({ retryAfterSeconds: 7 });
    sim.setFault('http-429', 'nobitex');
    const response = await fetch(`${sim.nobitexBaseUrl}/market/stats`);
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBeNull();
    const text = await response.text();
    expect(shape(JSON.parse(text))).toEqual(shape(JSON.parse(fixture('nobitex/too-many-requests.json'))));
    expect(JSON.parse(text)).toMatchObject({ status: 'failed', code: 'TooManyRequests', backOff: 7 });
    expect(nobitexBackOffMs(text)).toBe(7_000);
  });

  it('answers placeholders as recorded, and closed markets, per market', async () => {
    const sim = await startSimulator();
    sim.setNobitexCondition('placeholders', ['usdt-rls']);
    sim.setNobitexCondition('closed', ['btc-rls']);
    const text = await (
      await fetch(`${sim.nobitexBaseUrl}/market/stats?srcCurrency=usdt,btc,eth&dstCurrency=rls`)
    ).text();
    const { stats } = JSON.parse(text) as { stats: Record<string, Record<string, unknown>> };
    expect(stats['usdt-rls']).toMatchObject({
      isClosed: false,
      latest: '0E-10',
      dayClose: '0E-10',
      dayChange: '-100.00',
    });
    expect(stats['btc-rls']).toMatchObject({ isClosed: true });
    expect(stats['eth-rls']).toMatchObject({ isClosed: false });
    expect(stats['eth-rls']?.latest).not.toBe('0E-10');
    expect(parseNobitexStats(text, [tether, btcToman], Date.now())).toMatchObject({
      quotes: [{ symbol: 'USDT', changePct: null }],
      rejected: ['day-change-placeholder', 'market-closed'],
    });
    sim.setNobitexCondition('normal');
    const again = (await (
      await fetch(`${sim.nobitexBaseUrl}/market/stats?srcCurrency=btc&dstCurrency=rls`)
    ).json()) as { stats: Record<string, Record<string, unknown>> };
    expect(again.stats['btc-rls']?.isClosed).toBe(false);
    expect(() => sim.setNobitexCondition('closed', ['BTCIRT'])).toThrow(
      '"BTCIRT" is not a Nobitex market key like btc-rls',
    );
  });
});

describe('Nobitex market stats', () => {
  it('answers usdt-rls with every documented field as a string, prices in rial', async () => {
    const sim = await startSimulator();
    const response = await fetch(`${sim.nobitexBaseUrl}/market/stats?srcCurrency=usdt&dstCurrency=rls`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      status: string;
      stats: Record<string, Record<string, unknown>>;
    };
    expect(body.status).toBe('ok');
    expect(Object.keys(body.stats)).toEqual(['usdt-rls']);
    const market = body.stats['usdt-rls'] ?? {};
    expect(Object.keys(market)).toEqual([
      'isClosed',
      'bestSell',
      'bestBuy',
      'volumeSrc',
      'volumeDst',
      'latest',
      'mark',
      'dayLow',
      'dayHigh',
      'dayOpen',
      'dayClose',
      'dayChange',
    ]);
    expect(market.isClosed).toBe(false);
    for (const [field, value] of Object.entries(market)) {
      if (field !== 'isClosed') expect(typeof value, field).toBe('string');
    }
    expect(market.bestSell).toMatch(/^\d{7,8}$/);
    expect(market.bestSell).toBe(sim.usdtBestSellRial());
    expect(Number(market.bestSell)).toBeGreaterThan(Number(market.bestBuy));

    sim.setUsdtBestSellRial('1052990');
    const again = (await (
      await fetch(`${sim.nobitexBaseUrl}/market/stats?srcCurrency=usdt&dstCurrency=rls`)
    ).json()) as {
      stats: Record<string, { bestSell: string }>;
    };
    expect(again.stats['usdt-rls']?.bestSell).toBe('1052990');
  });

  it('answers coin markets in rial and in tether for any srcCurrency list, consistent with the others', async () => {
    const sim = await startSimulator();
    sim.setUsdtBestSellRial('1052990');
    sim.tick('BTCUSDT', '97250.12');
    sim.tick('SHIBUSDT', '0.00002193');
    const stats = async (query: string) =>
      (
        (await (await fetch(`${sim.nobitexBaseUrl}/market/stats?${query}`)).json()) as {
          stats: Record<string, Record<string, string>>;
        }
      ).stats;

    const rls = await stats('srcCurrency=btc,shib,usdt&dstCurrency=rls');
    expect(Object.keys(rls)).toEqual(['usdt-rls', 'btc-rls', 'shib-rls']);
    expect(rls['btc-rls']?.bestSell).toBe('102403403860');
    expect(rls['btc-rls']?.bestSell).toBe(`${sim.tomanAskOf('BTC')}0`);
    // Nobitex's shib market prices a thousand SHIB (docs/sources.md, "Nobitex"): 23.092 rial a
    // coin is 23 092 rial a thousand.
    expect(rls['shib-rls']?.bestSell).toBe('23092');
    expect(Number(rls['btc-rls']?.bestBuy)).toBeLessThan(Number(rls['btc-rls']?.bestSell));
    expect(rls['btc-rls']?.dayChange).toMatch(/^-?\d+\.\d{2}$/);

    const usdt = await stats('srcCurrency=btc,eth&dstCurrency=usdt');
    expect(Object.keys(usdt)).toEqual(['btc-usdt', 'eth-usdt']);
    expect(usdt['btc-usdt']?.bestSell).toBe('97250.12');

    const all = await stats('');
    expect(Object.keys(all)).toHaveLength(1 + 4 * 2);
  });
});
