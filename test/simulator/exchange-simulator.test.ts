import { describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait.ts';
import { connect, startSimulator } from './helpers.ts';

describe('exchange simulator', () => {
  it('answers 404 on a path no exchange serves', async () => {
    const sim = await startSimulator();
    const response = await fetch(`${sim.restBaseUrl}/api/v3/depth`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: 'not found' });
  });
});

describe('fault modes', () => {
  it('corrupts prices on the wire: negative, NaN and ×1000, for Binance ask and Nobitex bestSell', async () => {
    const sim = await startSimulator();
    const client = await connect(sim, '/stream?streams=btcusdt@ticker');
    const stats = async () =>
      (
        (await (await fetch(`${sim.nobitexBaseUrl}/market/stats`)).json()) as {
          stats: Record<string, { bestSell: string }>;
        }
      ).stats['usdt-rls']?.bestSell;
    sim.setUsdtBestSellRial('1050000');

    sim.setFault('negative');
    sim.tick('BTCUSDT', '90000');
    expect(await client.next()).toMatchObject({ data: { a: '-90000.00000000' } });
    expect(await stats()).toBe('-1050000');

    sim.setFault('nan');
    sim.tick('BTCUSDT');
    expect(await client.next()).toMatchObject({ data: { a: 'NaN' } });
    expect(await stats()).toBe('NaN');

    sim.setFault('absurd');
    sim.tick('BTCUSDT');
    expect(await client.next()).toMatchObject({ data: { a: '90000000.00000000' } });
    expect(await stats()).toBe('1050000000');
    expect(sim.askOf('BTCUSDT')).toBe('90000.00000000');
  });
});

describe('random walk', () => {
  it('ticks busy coins every second on its own', async () => {
    const sim = await startSimulator({ autoTick: true });
    const client = await connect(sim, '/stream?streams=btcusdt@ticker');
    await waitFor(() => client.frames.length >= 2, 4_000, 'two BTC ticks');
    const asks = client.frames.map((frame) => (JSON.parse(frame) as { data: { a: string } }).data.a);
    for (const ask of asks) expect(Number(ask)).toBeGreaterThan(50_000);
    expect(sim.askOf('BTCUSDT')).toBe(asks.at(-1));
  });
});
