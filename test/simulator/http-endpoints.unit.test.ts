import { describe, expect, it } from 'vitest';
import { startSimulator } from '../support/simulator.ts';
import { sleep } from '../support/wait.ts';

describe('simulated HTTP endpoints', () => {
  it('answer only GET, naming it in Allow', async () => {
    const sim = await startSimulator();
    const response = await fetch(`${sim.nobitexBaseUrl}/market/stats`, { method: 'POST' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET');
  });

  it('hold a request under stall and answer it once the stall ends', async () => {
    const sim = await startSimulator();
    sim.setUsdtBestSellRial('1052990');
    sim.setFault('stall', 'nobitex');
    let settled = false;
    const pending = fetch(`${sim.nobitexBaseUrl}/market/stats`).finally(() => {
      settled = true;
    });
    await sleep(100);
    expect(settled).toBe(false);
    sim.setFault('none');
    const response = await pending;
    expect(response.status).toBe(200);
    expect(((await response.json()) as { stats: Record<string, { bestSell: string }> }).stats).toMatchObject({
      'usdt-rls': { bestSell: '1052990' },
    });
  });

  it('reset the connection under drop, for the exchange it is set on only', async () => {
    const sim = await startSimulator();
    sim.setFault('drop', 'binance');
    await expect(fetch(`${sim.restBaseUrl}/api/v3/ticker/24hr?symbol=BTCUSDT`)).rejects.toThrow();
    expect((await fetch(`${sim.nobitexBaseUrl}/market/stats`)).status).toBe(200);
  });
});
