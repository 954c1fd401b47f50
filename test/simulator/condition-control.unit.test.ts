import { describe, expect, it } from 'vitest';
import { connect, startSimulator } from '../support/simulator.ts';
import { waitFor } from '../support/wait.ts';

describe('/_simulator/condition', () => {
  it("sets Nobitex's placeholders and closed markets, Wallex's slow or gone /v1/markets, and Binance's serverShutdown", async () => {
    const sim = await startSimulator();
    const control = `${sim.restBaseUrl}/_simulator/condition`;
    const post = async (body: unknown) => {
      const response = await fetch(control, { method: 'POST', body: JSON.stringify(body) });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };

    expect(await post({ exchange: 'nobitex', condition: 'closed', markets: ['btc-rls'] })).toEqual({
      status: 200,
      body: { nobitex: 'closed', markets: ['btc-rls'] },
    });
    const stats = (await (
      await fetch(`${sim.nobitexBaseUrl}/market/stats?srcCurrency=btc&dstCurrency=rls`)
    ).json()) as {
      stats: Record<string, { isClosed: boolean }>;
    };
    expect(stats.stats['btc-rls']?.isClosed).toBe(true);

    expect((await post({ exchange: 'wallex', markets: 'gone' })).status).toBe(200);
    expect((await fetch(`${sim.wallexBaseUrl}/v1/markets`)).status).toBe(404);
    expect((await post({ exchange: 'wallex', markets: 'normal' })).status).toBe(200);
    expect((await fetch(`${sim.wallexBaseUrl}/v1/markets`)).status).toBe(200);

    const client = await connect(sim, '/ws/btcusdt@ticker');
    expect(await post({ exchange: 'binance', event: 'server-shutdown', closeAfterMs: 100 })).toEqual({
      status: 200,
      body: { told: 1 },
    });
    expect(await client.next()).toMatchObject({ e: 'serverShutdown' });
    await waitFor(() => client.closed, 2_000, 'the connection to close');
  });

  it('answers a mistake with 400 and what to send', async () => {
    const sim = await startSimulator();
    const control = `${sim.restBaseUrl}/_simulator/condition`;
    for (const [body, error] of [
      [{ exchange: 'kraken' }, 'exchange must be binance, nobitex or wallex'],
      [
        { exchange: 'nobitex', condition: 'open' },
        'nobitex: condition must be placeholders, closed or normal',
      ],
      [
        { exchange: 'nobitex', condition: 'closed', markets: ['BTCIRT'] },
        '"BTCIRT" is not a Nobitex market key like btc-rls',
      ],
      [{ exchange: 'wallex', markets: 'slow' }, 'delayMs must be a positive integer'],
      [{ exchange: 'binance', event: 'restart' }, 'binance: event must be server-shutdown'],
    ] as const) {
      const response = await fetch(control, { method: 'POST', body: JSON.stringify(body) });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error });
    }
    expect((await fetch(control)).status).toBe(405);
    expect((await fetch(control, { method: 'POST', body: 'not json' })).status).toBe(400);
  });
});
