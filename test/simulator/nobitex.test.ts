import { describe, expect, it } from 'vitest';
import { startSimulator } from '../support/simulator.ts';

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
    expect(rls['shib-rls']?.bestSell).toBe('23.092');
    expect(Number(rls['btc-rls']?.bestBuy)).toBeLessThan(Number(rls['btc-rls']?.bestSell));
    expect(rls['btc-rls']?.dayChange).toMatch(/^-?\d+\.\d{2}$/);

    const usdt = await stats('srcCurrency=btc,eth&dstCurrency=usdt');
    expect(Object.keys(usdt)).toEqual(['btc-usdt', 'eth-usdt']);
    expect(usdt['btc-usdt']?.bestSell).toBe('97250.12');

    const all = await stats('');
    expect(Object.keys(all)).toHaveLength(1 + 4 * 2);
  });
});
