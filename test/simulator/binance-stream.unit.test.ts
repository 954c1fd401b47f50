import { describe, expect, it } from 'vitest';
import { parseTickerFrame } from '../../src/feeds/binance-ticker.ts';
import { fixture } from '../support/fixtures.ts';
import { connect, startSimulator } from '../support/simulator.ts';
import { sleep, waitFor } from '../support/wait.ts';

const STRING_FIELDS = ['p', 'P', 'w', 'x', 'c', 'Q', 'b', 'B', 'a', 'A', 'o', 'h', 'l', 'v', 'q'];
const INTEGER_FIELDS = ['E', 'O', 'C', 'F', 'L', 'n'];
/** Binance "Individual Symbol Ticker Streams", in documented order. */
const TICKER_FIELDS = [
  ...['e', 'E', 's', 'p', 'P', 'w', 'x', 'c', 'Q', 'b', 'B', 'a'],
  ...['A', 'o', 'h', 'l', 'v', 'q', 'O', 'C', 'F', 'L', 'n'],
];
const DECIMAL_8 = /^-?\d+\.\d{8}$/;

function expectTickerShape(data: Record<string, unknown>, pair: string): void {
  expect(Object.keys(data)).toEqual(TICKER_FIELDS);
  expect(data.e).toBe('24hrTicker');
  expect(data.s).toBe(pair);
  for (const field of STRING_FIELDS) expect(typeof data[field], field).toBe('string');
  for (const field of INTEGER_FIELDS) expect(Number.isSafeInteger(data[field]), field).toBe(true);
  for (const field of ['p', 'w', 'x', 'c', 'b', 'a', 'o', 'h', 'l'])
    expect(data[field], field).toMatch(DECIMAL_8);
  expect(data.P).toMatch(/^-?\d+\.\d{3}$/);
  expect(Number(data.a)).toBeGreaterThan(Number(data.b));
  expect(data.C as number).toBe(data.E);
  expect((data.C as number) - (data.O as number)).toBe(86_400_000);
  expect(data.n).toBe((data.L as number) - (data.F as number) + 1);
}

describe('Binance WebSocket streams', () => {
  it("sends ticker events with the documented example's fields, in its order, read by the same parser", async () => {
    const documented = JSON.parse(fixture('binance/ticker-stream-bnbbtc.json')) as Record<string, unknown>;
    expect(Object.keys(documented)).toEqual(TICKER_FIELDS);
    const sim = await startSimulator();
    const client = await connect(sim, '/ws/btcusdt@ticker');
    sim.tick('BTCUSDT', '97123.45');
    const text = JSON.stringify(await client.next());
    expect(Object.keys(JSON.parse(text))).toEqual(Object.keys(documented));
    expect(parseTickerFrame(text, new Set(['BTCUSDT']))).toMatchObject({
      kind: 'quote',
      quote: { ask: 97123.45 },
    });
    expect(parseTickerFrame(JSON.stringify(documented), new Set(['BNBBTC']))).toMatchObject({
      kind: 'quote',
      quote: { ask: 0.0026 },
    });
  });

  it('announces serverShutdown as documented, raw and combined, then closes those connections', async () => {
    const sim = await startSimulator();
    const combined = await connect(sim, '/stream?streams=btcusdt@ticker');
    const raw = await connect(sim, '/ws/btcusdt@ticker');
    const shape = (value: unknown): unknown =>
      typeof value === 'object' && value !== null
        ? Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, shape(inner)]))
        : typeof value;
    const announcedAt = Date.now();
    expect(sim.announceBinanceShutdown(200)).toBe(2);
    const combinedEvent = (await combined.next()) as { stream: string; data: { E: number } };
    const rawEvent = (await raw.next()) as { e: string; E: number };
    expect(shape(combinedEvent)).toEqual(shape(JSON.parse(fixture('binance/server-shutdown-combined.json'))));
    expect(combinedEvent.stream).toBe('!serverShutdown');
    expect(shape(rawEvent)).toEqual(shape(JSON.parse(fixture('binance/server-shutdown-raw.json'))));
    expect(rawEvent.e).toBe('serverShutdown');
    expect(rawEvent.E).toBeGreaterThanOrEqual(announcedAt);
    // A connection opened after the announcement is on the new server: not closed.
    const later = await connect(sim, '/stream?streams=btcusdt@ticker');
    await waitFor(() => combined.closed && raw.closed, 2_000, 'the announced connections to close');
    expect(Date.now() - announcedAt).toBeGreaterThanOrEqual(190);
    expect(combined.closed).toMatchObject({ code: 1001 });
    expect(later.closed).toBeNull();
    expect(sim.connectionCount).toBe(1);
  });

  it('wraps combined-stream events as {stream, data} with every ticker field, prices as strings', async () => {
    const sim = await startSimulator();
    const client = await connect(sim, '/stream?streams=btcusdt@ticker/ethusdt@ticker');
    const eventTime = sim.tick('BTCUSDT', '97123.45');
    const frame = (await client.next()) as { stream: string; data: Record<string, unknown> };
    expect(Object.keys(frame)).toEqual(['stream', 'data']);
    expect(frame.stream).toBe('btcusdt@ticker');
    expectTickerShape(frame.data, 'BTCUSDT');
    expect(frame.data.a).toBe('97123.45000000');
    expect(sim.askOf('BTCUSDT')).toBe('97123.45000000');
    expect(frame.data.E).toBe(eventTime);

    sim.tick('ETHUSDT');
    const eth = (await client.next()) as { stream: string; data: Record<string, unknown> };
    expect(eth.stream).toBe('ethusdt@ticker');
    expect(eth.data.a).toBe(sim.askOf('ETHUSDT'));
  });

  it('sends bare payloads on a raw /ws/<stream> connection, only for that stream', async () => {
    const sim = await startSimulator();
    const client = await connect(sim, '/ws/ethusdt@ticker');
    sim.tick('BTCUSDT', '90000');
    sim.tick('ETHUSDT', '3400.12');
    const data = (await client.next()) as Record<string, unknown>;
    expectTickerShape(data, 'ETHUSDT');
    expect(data.a).toBe('3400.12000000');
    await sleep(50);
    expect(client.frames).toEqual([]);
  });

  it('keeps an unchanged ask on a tick without a price, and quotes small coins with 8 decimals', async () => {
    const sim = await startSimulator();
    const client = await connect(sim, '/stream?streams=shibusdt@ticker');
    const before = sim.askOf('SHIBUSDT');
    sim.tick('SHIBUSDT');
    const frame = (await client.next()) as { data: Record<string, unknown> };
    expect(frame.data.a).toBe(before);
    expect(Number(before)).toBeLessThan(0.001);
    expect(before).toMatch(/^0\.0000\d{4}$/);
  });

  it('answers SUBSCRIBE, LIST_SUBSCRIPTIONS and UNSUBSCRIBE like Binance, and sends nothing for unknown streams', async () => {
    const sim = await startSimulator();
    const client = await connect(sim, '/ws');
    client.send({ method: 'SUBSCRIBE', params: ['btcusdt@ticker', 'nosuchcoinusdt@ticker'], id: 1 });
    expect(await client.next()).toEqual({ result: null, id: 1 });
    client.send({ method: 'LIST_SUBSCRIPTIONS', id: 2 });
    expect(await client.next()).toEqual({ result: ['btcusdt@ticker', 'nosuchcoinusdt@ticker'], id: 2 });

    sim.tick('BTCUSDT', '95000.01');
    const data = (await client.next()) as Record<string, unknown>;
    expect(data.a).toBe('95000.01000000');

    client.send({ method: 'UNSUBSCRIBE', params: ['btcusdt@ticker'], id: 3 });
    expect(await client.next()).toEqual({ result: null, id: 3 });
    sim.tick('BTCUSDT', '95000.02');
    await sleep(50);
    expect(client.frames).toEqual([]);
  });

  it('switches to combined payloads with SET_PROPERTY and reports errors in Binance error shape', async () => {
    const sim = await startSimulator();
    const client = await connect(sim, '/ws/btcusdt@ticker');
    client.send({ method: 'SET_PROPERTY', params: ['combined', true], id: 4 });
    expect(await client.next()).toEqual({ result: null, id: 4 });
    client.send({ method: 'GET_PROPERTY', params: ['combined'], id: 5 });
    expect(await client.next()).toEqual({ result: true, id: 5 });
    sim.tick('BTCUSDT');
    expect(await client.next()).toMatchObject({ stream: 'btcusdt@ticker' });

    client.send({ method: 'LIST', id: 6 });
    expect(await client.next()).toMatchObject({ error: { code: 2 }, id: 6 });
    client.ws.send('not json');
    expect(await client.next()).toMatchObject({ error: { code: 3 } });
  });

  it('sends ping frames and disconnects a client that does not pong in time', async () => {
    // The pong timeout leaves a loaded machine's polite client time to answer.
    const sim = await startSimulator({ pingIntervalMs: 40, pongTimeoutMs: 1_000, maxIncomingPerSecond: 100 });
    const polite = await connect(sim, '/stream?streams=btcusdt@ticker');
    const silent = await connect(sim, '/stream?streams=btcusdt@ticker', { autoPong: false });
    await waitFor(() => silent.closed, 10_000, 'the silent client to be disconnected');
    expect(silent.pings.length).toBeGreaterThan(0);
    expect(polite.pings.length).toBeGreaterThan(3);
    expect(polite.closed).toBeNull();
    expect(sim.connectionCount).toBe(1);
  });

  it('closes a connection at the lifetime cap', async () => {
    const sim = await startSimulator({ maxConnectionMs: 100 });
    const client = await connect(sim, '/stream?streams=btcusdt@ticker');
    const closed = await waitFor(() => client.closed, 2_000, 'the lifetime close');
    expect(closed.code).toBe(1000);
  });

  it('disconnects a client sending more than 5 messages a second', async () => {
    const sim = await startSimulator();
    const client = await connect(sim, '/ws');
    for (let id = 1; id <= 7; id++) client.send({ method: 'LIST_SUBSCRIPTIONS', id });
    const closed = await waitFor(() => client.closed, 2_000, 'the rate-limit close');
    expect(closed.code).toBe(1008);
  });

  it('refuses unknown WebSocket paths with 404', async () => {
    const sim = await startSimulator();
    await expect(connect(sim, '/nope')).rejects.toThrow(/404/);
  });
});

describe('fault modes', () => {
  it('drop closes WebSocket connections abruptly and keeps closing new ones until cleared', async () => {
    const sim = await startSimulator();
    const client = await connect(sim, '/stream?streams=btcusdt@ticker');
    sim.setFault('drop', 'binance');
    expect((await waitFor(() => client.closed, 2_000, 'the drop')).code).toBe(1006);
    const again = await connect(sim, '/stream?streams=btcusdt@ticker');
    expect((await waitFor(() => again.closed, 2_000, 'the second drop')).code).toBe(1006);

    sim.setFault('none');
    const healthy = await connect(sim, '/stream?streams=btcusdt@ticker');
    sim.tick('BTCUSDT', '96000');
    expect(await healthy.next()).toMatchObject({ data: { a: '96000.00000000' } });
  });

  it('stall keeps sockets open but sends neither data nor pings', async () => {
    const sim = await startSimulator({ pingIntervalMs: 30, pongTimeoutMs: 60, maxIncomingPerSecond: 100 });
    const client = await connect(sim, '/stream?streams=btcusdt@ticker', { autoPong: false });
    sim.setFault('stall', 'binance');
    const pingsBefore = client.pings.length;
    sim.tick('BTCUSDT', '90000');
    await sleep(200);
    expect(client.frames).toEqual([]);
    expect(client.pings.length).toBe(pingsBefore);
    expect(client.closed).toBeNull();
  });

  it('malformed sends cut-off JSON and events without the ask', async () => {
    const sim = await startSimulator();
    const client = await connect(sim, '/stream?streams=btcusdt@ticker');
    sim.setFault('malformed', 'binance');
    for (let i = 0; i < 3; i++) sim.tick('BTCUSDT');
    await waitFor(() => client.frames.length === 3, 2_000, 'three frames');
    const parsed = client.frames.map((frame) => {
      try {
        return JSON.parse(frame) as { data: Record<string, unknown> };
      } catch {
        return null;
      }
    });
    expect(parsed.filter((frame) => frame === null)).toHaveLength(1);
    expect(parsed.some((frame) => frame !== null && !('a' in frame.data))).toBe(true);
    expect(parsed.some((frame) => frame !== null && typeof frame.data.a === 'number')).toBe(true);
  });
});
