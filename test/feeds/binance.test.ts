import { afterEach, describe, expect, it } from 'vitest';
import { BinanceFeed, type BinanceFeedOptions } from '../../src/feeds/binance.ts';
import { ExchangeSimulator, type SimulatorOptions } from '../../src/feeds/simulator/exchange-simulator.ts';
import { RecordingListener, silentLogger, sleep, smallCatalog, WireClient, waitFor } from './helpers.ts';

let simulator: ExchangeSimulator | undefined;
let feed: BinanceFeed | undefined;
let observer: WireClient | undefined;

afterEach(async () => {
  await feed?.stop();
  await observer?.close();
  await simulator?.stop();
  feed = undefined;
  observer = undefined;
  simulator = undefined;
});

async function setup(
  feedOptions: Partial<BinanceFeedOptions> = {},
  simulatorOptions: Partial<SimulatorOptions> = {},
): Promise<{ sim: ExchangeSimulator; listener: RecordingListener }> {
  const sim = await ExchangeSimulator.start({
    catalog: smallCatalog(),
    seed: 42,
    autoTick: false,
    pingIntervalMs: 100,
    maxIncomingPerSecond: 50,
    ...simulatorOptions,
  });
  simulator = sim;
  const listener = new RecordingListener();
  feed = new BinanceFeed({
    wsBaseUrl: sim.wsBaseUrl,
    pairs: ['BTCUSDT', 'ETHUSDT', 'SHIBUSDT'],
    listener,
    logger: silentLogger,
    stallMs: 1_000,
    backoffBaseMs: 20,
    backoffMaxMs: 100,
    ...feedOptions,
  });
  feed.start();
  await waitFor(() => listener.lastState() === 'open', 3_000, 'the feed to connect');
  return { sim, listener };
}

/** Ticks until a quote for the pair arrives (a tick sent before the server registered the client is lost). */
async function tickUntilQuoted(
  sim: ExchangeSimulator,
  listener: RecordingListener,
  pair: string,
  ask?: string,
) {
  const since = Date.now();
  return waitFor(
    () => {
      sim.tick(pair, ask);
      return listener.quotes.find((quote) => quote.pair === pair && quote.tickTime >= since);
    },
    3_000,
    `a ${pair} quote`,
  );
}

describe('BinanceFeed', () => {
  it('publishes the ask exactly as quoted, E as tick time and P as change', async () => {
    const { sim, listener } = await setup();
    observer = await WireClient.open(`${sim.wsBaseUrl}/ws/btcusdt@ticker`);
    const eventTime = sim.tick('BTCUSDT', '97123.45');
    const wire = (await observer.next()) as { a: string; P: string; E: number };
    const quote = await waitFor(
      () => listener.quotes.find((q) => q.tickTime === eventTime),
      2_000,
      'the quote',
    );
    expect(quote).toEqual({
      pair: 'BTCUSDT',
      ask: Number(sim.askOf('BTCUSDT')),
      changePct: Number(wire.P),
      tickTime: wire.E,
      source: 'binance',
    });
    expect(quote.ask).toBe(97123.45);

    const shib = await tickUntilQuoted(sim, listener, 'SHIBUSDT', '0.00002193');
    expect(shib.ask).toBe(0.00002193);
    expect(listener.rejections).toEqual([]);
  });

  it('reports connecting then open, and closed on stop', async () => {
    const { listener } = await setup();
    expect(listener.statesSeen()).toEqual(['connecting', 'open']);
    expect(listener.states.every((s) => s.source === 'binance' && s.detail.length > 0)).toBe(true);
    await Promise.all([feed?.stop(), feed?.stop()]);
    expect(listener.lastState()).toBe('closed');
    expect(listener.statesSeen().filter((state) => state === 'closed')).toHaveLength(1);
    await waitFor(() => simulator?.connectionCount === 0, 2_000, 'the server to see the close');
  });

  it('answers pings, so a quiet connection is neither stalled nor dropped by the server', async () => {
    const { sim, listener } = await setup({ stallMs: 400 }, { pingIntervalMs: 80, pongTimeoutMs: 250 });
    await sleep(1_000);
    expect(listener.statesSeen()).toEqual(['connecting', 'open']);
    expect(sim.connectionCount).toBe(1);
  });

  it('bootstraps from REST, keeping good pairs when one symbol is unknown to Binance', async () => {
    const listener = new RecordingListener();
    simulator = await ExchangeSimulator.start({ catalog: smallCatalog(), seed: 5, autoTick: false });
    const sim = simulator;
    feed = new BinanceFeed({
      wsBaseUrl: sim.wsBaseUrl,
      restBaseUrl: sim.restBaseUrl,
      pairs: ['BTCUSDT', 'ETHUSDT', 'NOPEUSDT'],
      listener,
      logger: silentLogger,
    });
    const before = Date.now();
    feed.start();
    await waitFor(() => listener.quotes.length === 2, 3_000, 'two bootstrap quotes');
    const byPair = new Map(listener.quotes.map((quote) => [quote.pair, quote]));
    expect(byPair.get('BTCUSDT')?.ask).toBe(Number(sim.askOf('BTCUSDT')));
    expect(byPair.get('ETHUSDT')?.ask).toBe(Number(sim.askOf('ETHUSDT')));
    expect(byPair.get('BTCUSDT')?.tickTime).toBeGreaterThanOrEqual(before);
    expect(typeof byPair.get('ETHUSDT')?.changePct).toBe('number');
  });

  it('reconnects with backoff after the server drops the connection', async () => {
    const { sim, listener } = await setup();
    sim.setFault('drop', 'binance', { durationMs: 300 });
    await waitFor(() => listener.lastState() === 'backoff', 2_000, 'backoff');
    await waitFor(
      () => sim.faultState().binance === 'none' && listener.lastState() === 'open',
      3_000,
      'reconnect',
    );
    const backoffs = listener.states.filter((s) => s.state === 'backoff');
    expect(backoffs[0]?.detail).toMatch(/dropped|failed/);
    expect(backoffs.at(-1)?.detail).toMatch(/reconnecting in \d+ ms \(attempt \d+\)/);
    expect(backoffs.length).toBeGreaterThan(1);

    const quote = await tickUntilQuoted(sim, listener, 'ETHUSDT', '3333.33');
    expect(quote.ask).toBe(3333.33);
    expect(sim.connectionCount).toBe(1);
  });

  it('grows the backoff while failures repeat and resets it after a healthy period', async () => {
    const { sim, listener } = await setup({ healthyAfterMs: 150 });
    sim.setFault('drop', 'binance');
    await waitFor(
      () => listener.states.some((s) => /\(attempt 3\)/.test(s.detail)),
      3_000,
      'three failed attempts',
    );
    sim.setFault('none');
    await waitFor(() => listener.lastState() === 'open', 3_000, 'reconnect');
    await sleep(300);
    const mark = listener.states.length;
    sim.setFault('drop', 'binance');
    const next = await waitFor(
      () => listener.states.slice(mark).find((s) => s.state === 'backoff'),
      2_000,
      'a drop',
    );
    expect(next.detail).toMatch(/\(attempt 1\)$/);
  });

  it('detects a stalled connection and replaces it', async () => {
    const { sim, listener } = await setup({ stallMs: 300 });
    sim.setFault('stall', 'binance');
    const stalled = await waitFor(() => listener.states.find((s) => s.state === 'stalled'), 2_000, 'stall');
    expect(stalled.detail).toMatch(/nothing received for 300 ms/);
    sim.setFault('none');
    await waitFor(() => listener.lastState() === 'open', 3_000, 'reconnect after the stall');
    expect((await tickUntilQuoted(sim, listener, 'BTCUSDT', '91000')).ask).toBe(91000);
    await waitFor(() => sim.connectionCount === 1, 2_000, 'the stalled socket to go');
  });

  it('backs off when the WebSocket upgrade is refused with 429 or 503', async () => {
    const sim = await ExchangeSimulator.start({ catalog: smallCatalog(), autoTick: false });
    simulator = sim;
    sim.setFault('http-429', 'binance');
    const listener = new RecordingListener();
    feed = new BinanceFeed({
      wsBaseUrl: sim.wsBaseUrl,
      pairs: ['BTCUSDT'],
      listener,
      logger: silentLogger,
      backoffBaseMs: 20,
      backoffMaxMs: 50,
    });
    feed.start();
    const refused = await waitFor(() => listener.states.find((s) => s.state === 'backoff'), 2_000, 'backoff');
    expect(refused.detail).toMatch(/429/);
    sim.setFault('http-5xx', 'binance');
    await waitFor(() => listener.states.some((s) => /503/.test(s.detail)), 2_000, 'a 503');
    sim.setFault('none');
    await waitFor(() => listener.lastState() === 'open', 2_000, 'recovery');
  });

  it('rejects negative, NaN and malformed asks without publishing them', async () => {
    const { sim, listener } = await setup();
    await tickUntilQuoted(sim, listener, 'BTCUSDT', '90000');

    sim.setFault('negative', 'binance');
    sim.tick('BTCUSDT', '90001');
    sim.setFault('nan', 'binance');
    sim.tick('BTCUSDT', '90002');
    sim.setFault('malformed', 'binance');
    for (let i = 0; i < 3; i++) sim.tick('BTCUSDT');
    await waitFor(() => listener.rejections.length === 5, 2_000, 'five rejections');
    expect(listener.rejections.map((r) => r.reason).sort()).toEqual(
      ['ask-missing', 'ask-not-a-number', 'ask-not-a-string', 'ask-not-positive', 'invalid-json'].sort(),
    );
    expect(listener.rejections.every((r) => r.source === 'binance')).toBe(true);
    expect(listener.quotes.map((q) => q.ask)).toEqual(listener.quotes.map(() => 90000));
    expect(listener.lastState()).toBe('open');
  });

  it('passes an absurd but valid price on: judging jumps is the collector guard’s job', async () => {
    const { sim, listener } = await setup();
    await tickUntilQuoted(sim, listener, 'ETHUSDT', '3400');
    sim.setFault('absurd', 'binance');
    const eventTime = sim.tick('ETHUSDT', '3400');
    const quote = await waitFor(
      () => listener.quotes.find((q) => q.tickTime === eventTime && q.ask > 3400),
      2_000,
    );
    expect(quote.ask).toBe(3_400_000);
  });

  it('splits many streams over several connections', async () => {
    const { sim, listener } = await setup({ streamsPerConnection: 2 });
    await waitFor(() => sim.connectionCount === 2, 2_000, 'two connections');
    expect((await tickUntilQuoted(sim, listener, 'BTCUSDT', '90500')).ask).toBe(90500);
    expect((await tickUntilQuoted(sim, listener, 'SHIBUSDT', '0.00002')).ask).toBe(0.00002);
  });

  it('replaces its connection before the lifetime cap without a gap', async () => {
    const { sim, listener } = await setup({ maxConnectionMs: 300 });
    const replaced = await waitFor(
      () => listener.states.find((s) => /replaced/.test(s.detail)),
      3_000,
      'a proactive replacement',
    );
    expect(replaced.state).toBe('open');
    expect(listener.statesSeen()).not.toContain('backoff');
    await waitFor(() => sim.connectionCount === 1, 2_000, 'the old connection to close');
    expect((await tickUntilQuoted(sim, listener, 'BTCUSDT', '92000')).ask).toBe(92000);
  });

  it('reconnects when the server closes at its lifetime cap', async () => {
    const { sim, listener } = await setup({}, { maxConnectionMs: 200 });
    const closed = await waitFor(() => listener.states.find((s) => s.state === 'backoff'), 2_000, 'the cap');
    expect(closed.detail).toMatch(/closed by the server \(code 1000: connection lifetime exceeded\)/);
    await waitFor(() => listener.lastState() === 'open', 2_000, 'reconnect');
    expect(sim.connectionCount).toBe(1);
  });

  it('refuses pairs that are not upper-case Binance symbols', () => {
    const options = {
      wsBaseUrl: 'ws://127.0.0.1:1',
      listener: new RecordingListener(),
      logger: silentLogger,
    };
    expect(() => new BinanceFeed({ ...options, pairs: ['btcusdt'] })).toThrow(/upper-case/);
    expect(() => new BinanceFeed({ ...options, pairs: [] })).toThrow(/at least one/);
  });
});
