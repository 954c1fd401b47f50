import { describe, expect, it } from 'vitest';
import { startSimulator } from '../support/simulator.ts';

describe('fault modes', () => {
  it('switches faults at run time through /_simulator/fault', async () => {
    const sim = await startSimulator({ retryAfterSeconds: 3 });
    const control = `${sim.restBaseUrl}/_simulator/fault`;
    const set = await fetch(control, {
      method: 'POST',
      body: JSON.stringify({ fault: 'http-429', target: 'nobitex' }),
    });
    expect(await set.json()).toEqual({ binance: 'none', nobitex: 'http-429', wallex: 'none', panel: 'none' });
    expect(await (await fetch(control)).json()).toEqual({
      binance: 'none',
      nobitex: 'http-429',
      wallex: 'none',
      panel: 'none',
    });

    const limited = await fetch(`${sim.nobitexBaseUrl}/market/stats?srcCurrency=usdt&dstCurrency=rls`);
    expect(limited.status).toBe(429);
    // Nobitex says its wait in the body, not in Retry-After.
    expect(limited.headers.get('retry-after')).toBeNull();
    expect(await limited.json()).toMatchObject({ code: 'TooManyRequests', backOff: 3 });
    expect((await fetch(`${sim.restBaseUrl}/api/v3/ticker/24hr?symbol=BTCUSDT`)).status).toBe(200);

    await fetch(control, { method: 'POST', body: JSON.stringify({ fault: 'http-5xx' }) });
    expect((await fetch(`${sim.restBaseUrl}/api/v3/ticker/24hr?symbol=BTCUSDT`)).status).toBe(503);

    const bad = await fetch(control, { method: 'POST', body: JSON.stringify({ fault: 'explode' }) });
    expect(bad.status).toBe(400);
  });
});
