import { describe, expect, it } from 'vitest';
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

  it('backs off when the WebSocket upgrade is refused with 429 or 503', async () => {
    const { sim, listener } = await binanceFeedUnderFault('http-429');
    const refused = await waitFor(() => listener.states.find((s) => s.state === 'backoff'), 2_000, 'backoff');
    expect(refused.detail).toMatch(/429/);
    sim.setFault('http-5xx', 'binance');
    await waitFor(() => listener.states.some((s) => /503/.test(s.detail)), 2_000, 'a 503');
    sim.setFault('none');
    await waitFor(() => listener.lastState() === 'open', 2_000, 'recovery');
  });

  it("is refused while geo-blocked (HTTP 451 with Binance's message), and open with quotes once lifted", async () => {
    const { sim, listener } = await binanceFeedUnderFault('geo-block', { refusedBackoffMaxMs: 100 });
    await waitFor(
      () => listener.states.filter((s) => s.state === 'refused').length >= 2,
      2_000,
      'two refusals',
    );
    const refused = listener.states.find((s) => s.state === 'refused');
    expect(refused?.detail).toMatch(
      /^HTTP 451: Service unavailable from a restricted location according to 'b\. Eligibility' in https:\/\/www\.binance\.com\/en\/terms\. Please contact customer service if you believe you received this message in error\.; reconnecting in \d+ ms \(attempt \d+\)$/,
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
