import { describe, expect, it } from 'vitest';
import { startSimulator } from '../support/simulator.ts';

interface PanelBody {
  data: { markets: { pair: string; sell: string; buy: string; change24h: number; updated_at: string }[] };
}

describe('the made-up exchange panel document', () => {
  it('lists every coin in TMN and USDT with sell, buy, change and time, at the documented path', async () => {
    const sim = await startSimulator();
    sim.setUsdtBestSellRial('1052990');
    sim.tick('BTCUSDT', '97250.12');
    const before = Date.now();
    expect(sim.panelUrl).toMatch(/\/panel\/prices$/);
    const response = await fetch(sim.panelUrl);
    expect(response.status).toBe(200);
    const { markets } = ((await response.json()) as PanelBody).data;
    expect(markets.map((m) => m.pair)).toEqual([
      'USDT-TMN',
      ...['BTC', 'ETH', 'SHIB', 'ZZZ'].flatMap((s) => [`${s}-TMN`, `${s}-USDT`]),
    ]);
    const btc = markets.find((m) => m.pair === 'BTC-TMN');
    expect(btc?.sell).toBe('10240340386');
    expect(btc?.sell).toBe(sim.tomanAskOf('BTC'));
    expect(markets.find((m) => m.pair === 'BTC-USDT')?.sell).toBe('97250.12');
    expect(markets.find((m) => m.pair === 'USDT-TMN')?.sell).toBe('105299');
    for (const market of markets) {
      expect(Number(market.buy)).toBeLessThan(Number(market.sell));
      expect(typeof market.change24h).toBe('number');
      expect(Date.parse(market.updated_at)).toBeGreaterThanOrEqual(before - 1000);
    }
  });
});
