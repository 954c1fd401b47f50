import { describe, expect, it } from 'vitest';
import { startSimulator } from './helpers.ts';

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
});
