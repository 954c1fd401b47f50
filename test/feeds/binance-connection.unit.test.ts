import { describe, expect, it, onTestFinished } from 'vitest';
import {
  binanceFeed,
  binanceFeedUnderFault,
  openBinanceFeed,
  RecordingListener,
  silentLogger,
  tickUntilQuoted,
  usdtMarkets,
} from '../support/feeds.ts';
import { sleep, waitFor } from '../support/wait.ts';

describe('BinanceFeed', () => {
  it('answers pings, so a quiet connection is neither stalled nor dropped by the server', async () => {
    const { sim, listener } = await openBinanceFeed(
      { stallMs: 400 },
      { pingIntervalMs: 80, pongTimeoutMs: 250 },
    );
    await sleep(1_000);
    expect(listener.statesSeen()).toEqual(['connecting', 'open']);
    expect(sim.connectionCount).toBe(1);
  });

  it('reconnects with backoff after the server drops the connection', async () => {
    const { sim, listener } = await openBinanceFeed();
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
    const { sim, listener } = await openBinanceFeed({ healthyAfterMs: 150 });
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
    const { sim, listener } = await openBinanceFeed({ stallMs: 300 });
    sim.setFault('stall', 'binance');
    const stalled = await waitFor(() => listener.states.find((s) => s.state === 'stalled'), 2_000, 'stall');
    expect(stalled.detail).toMatch(/nothing received for 300 ms/);
    sim.setFault('none');
    await waitFor(() => listener.lastState() === 'open', 3_000, 'reconnect after the stall');
    expect((await tickUntilQuoted(sim, listener, 'BTCUSDT', '91000')).ask).toBe(91000);
    await waitFor(() => sim.connectionCount === 1, 2_000, 'the stalled socket to go');
  });

  it('backs off when the WebSocket upgrade is refused with 429 (not before its Retry-After) or 503', async () => {
    const { sim, listener } = await binanceFeedUnderFault('http-429');
    const refused = await waitFor(() => listener.states.find((s) => s.state === 'backoff'), 2_000, 'backoff');
    expect(refused.detail).toMatch(/429/);
    // The simulator's Retry-After is 2 s: the next attempt waits at least that long.
    expect(Number(/reconnecting in (\d+) ms/.exec(refused.detail)?.[1])).toBeGreaterThanOrEqual(2_000);
    sim.setFault('http-5xx', 'binance');
    await waitFor(() => listener.states.some((s) => /503/.test(s.detail)), 4_000, 'a 503');
    sim.setFault('none');
    await waitFor(() => listener.lastState() === 'open', 2_000, 'recovery');
  });

  it('is refused while geo-blocked (an empty-bodied HTTP 451 on the upgrade), and open with quotes once lifted', async () => {
    const { sim, listener } = await binanceFeedUnderFault('geo-block', { refusedBackoffMaxMs: 100 });
    await waitFor(
      () => listener.states.filter((s) => s.state === 'refused').length >= 2,
      2_000,
      'two refusals',
    );
    const refused = listener.states.find((s) => s.state === 'refused');
    expect(refused?.detail).toMatch(
      /^HTTP 451 Unavailable For Legal Reasons; reconnecting in \d+ ms \(attempt \d+\)$/,
    );
    // Retries while refused stay refused: no 'connecting' between them.
    expect(listener.statesSeen().slice(0, 3)).toEqual(['connecting', 'refused', 'refused']);

    sim.setFault('none');
    await waitFor(() => listener.lastState() === 'open', 2_000, 'open after the block');
    expect((await tickUntilQuoted(sim, listener, 'BTCUSDT', '91000')).ask).toBe(91000);
  });

  it('is refused when a geo-block starts while connected, and when its REST bootstrap is refused', async () => {
    const { sim, listener } = await openBinanceFeed({ refusedBackoffMaxMs: 100 });
    sim.setFault('geo-block', 'binance');
    await waitFor(() => listener.lastState() === 'refused', 2_000, 'refused');
    sim.setFault('none');
    await waitFor(() => listener.lastState() === 'open', 2_000, 'open again');

    // REST refused while the stream cannot connect at all (nothing listens on port 1).
    sim.setFault('geo-block', 'binance');
    const restOnly = new RecordingListener();
    const feed = binanceFeed({
      name: 'binance',
      url: 'ws://127.0.0.1:1',
      restUrl: sim.restBaseUrl,
      markets: usdtMarkets(['BTCUSDT']),
      listener: restOnly,
      logger: silentLogger,
      backoffBaseMs: 1_000,
      backoffMaxMs: 1_000,
    });
    feed.start();
    const refused = await waitFor(() => restOnly.states.find((s) => s.state === 'refused'), 2_000, 'refused');
    expect(refused.detail).toMatch(/^HTTP 451: Service unavailable from a restricted location .*in error\.$/);
  });

  it('answers serverShutdown by opening the new connection before the old one closes, missing no price', async () => {
    const { sim, listener } = await openBinanceFeed();
    await tickUntilQuoted(sim, listener, 'BTCUSDT', '90000');
    // Tick a new BTC price every 10 ms throughout.
    const sent: number[] = [];
    let cents = 9_000_000;
    const ticker = setInterval(() => {
      cents += 1;
      sent.push(cents / 100);
      sim.tick('BTCUSDT', (cents / 100).toFixed(2));
    }, 10);
    onTestFinished(() => clearInterval(ticker));
    await sleep(100);
    const announcedAt = Date.now();
    expect(sim.announceBinanceShutdown(2_000)).toBe(1);
    const replaced = await waitFor(
      () => listener.states.find((s) => /serverShutdown/.test(s.detail)),
      2_000,
      'the replacement',
    );
    await waitFor(() => Date.now() - announcedAt > 2_200, 3_000, 'past the server closing the old one');
    clearInterval(ticker);
    const lastSent = sent.at(-1) as number;
    await waitFor(() => listener.quotes.at(-1)?.ask === lastSent, 2_000, 'the last price');

    expect(replaced).toMatchObject({ state: 'open' });
    expect(replaced.detail).toMatch(/replaced the connection: the server announced serverShutdown$/);
    // As the server saw it: connection 2 opened, then connection 1 closed, before the server's
    // own close 2 s after the announcement (nerkh closed it once the new one was open).
    const log = sim.binanceConnectionLog().filter((e) => e.at >= announcedAt);
    expect(log.map(({ connection, event }) => `${connection} ${event}`)).toEqual(['2 open', '1 close']);
    expect((log[1]?.at as number) - announcedAt).toBeLessThan(2_000);
    expect(sim.connectionCount).toBe(1);
    // Every price sent was published, in order (one sent while both connections were open may
    // come twice); nothing rejected, no reconnect.
    const received = listener.quotes
      .filter((q) => q.symbol === 'BTC')
      .map((q) => q.ask)
      .filter((ask, index, all) => index === 0 || ask !== all[index - 1]);
    expect(received.slice(received.indexOf(sent[0] as number))).toEqual(sent);
    expect(listener.rejections).toEqual([]);
    expect(listener.statesSeen().slice(2)).toEqual(['open']);
  });

  it('replaces its connection before the lifetime cap without a gap', async () => {
    const { sim, listener } = await openBinanceFeed({ maxConnectionMs: 300 });
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
    const { sim, listener } = await openBinanceFeed({}, { maxConnectionMs: 200 });
    const closed = await waitFor(() => listener.states.find((s) => s.state === 'backoff'), 2_000, 'the cap');
    expect(closed.detail).toMatch(/closed by the server \(code 1000: connection lifetime exceeded\)/);
    await waitFor(() => listener.lastState() === 'open', 2_000, 'reconnect');
    expect(sim.connectionCount).toBe(1);
  });
});
