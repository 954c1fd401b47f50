import { describe, expect, it } from 'vitest';
import { startAnswerServer } from '../support/answer-server.ts';
import { binanceFeed, RecordingListener, silentLogger, usdtMarkets } from '../support/feeds.ts';
import { fixture } from '../support/fixtures.ts';
import { startSimulator } from '../support/simulator.ts';
import { waitFor } from '../support/wait.ts';

describe('BinanceFeed', () => {
  it('bootstraps from REST, keeping good pairs when one symbol is unknown to Binance', async () => {
    const listener = new RecordingListener();
    const sim = await startSimulator({ seed: 5 });
    const feed = binanceFeed({
      name: 'binance',
      url: sim.wsBaseUrl,
      restUrl: sim.restBaseUrl,
      markets: usdtMarkets(['BTCUSDT', 'ETHUSDT', 'NOPEUSDT']),
      listener,
      logger: silentLogger,
    });
    const before = Date.now();
    feed.start();
    await waitFor(() => listener.quotes.length === 2, 3_000, 'two bootstrap quotes');
    const bySymbol = new Map(listener.quotes.map((quote) => [quote.symbol, quote]));
    expect(bySymbol.get('BTC')?.ask).toBe(Number(sim.askOf('BTCUSDT')));
    expect(bySymbol.get('ETH')?.ask).toBe(Number(sim.askOf('ETHUSDT')));
    expect(bySymbol.get('BTC')?.tickTime).toBeGreaterThanOrEqual(before);
    expect(typeof bySymbol.get('ETH')?.changePct).toBe('number');
  });

  /** A feed on a stream nobody answers (port 1), bootstrapping from `restUrl` only. */
  function restOnlyFeed(restUrl: string, pairs = ['BNBUSDT']) {
    const listener = new RecordingListener();
    binanceFeed({
      name: 'binance',
      url: 'ws://127.0.0.1:1',
      restUrl,
      markets: usdtMarkets(pairs),
      listener,
      logger: silentLogger,
      backoffBaseMs: 5_000,
      backoffMaxMs: 5_000,
    }).start();
    return listener;
  }

  /** The documented REST answer, under the pair the feed follows. */
  const documented = fixture('binance/ticker-24hr-full-bnbbtc.json').replaceAll('BNBBTC', 'BNBUSDT');

  it('asks only for trading markets, and publishes the documented askPrice', async () => {
    const server = await startAnswerServer(() => ({ status: 200, body: documented }));
    const listener = restOnlyFeed(server.url);
    await waitFor(() => listener.quotes.length === 1, 3_000, 'the bootstrap quote');
    expect(decodeURIComponent(server.seen[0]?.url ?? '')).toBe(
      '/api/v3/ticker/24hr?symbols=["BNBUSDT"]&symbolStatus=TRADING',
    );
    expect(listener.quotes[0]).toMatchObject({
      symbol: 'BNB',
      currency: 'usdt',
      ask: 4.000002,
      changePct: -95.96,
    });
  });

  it('waits out a 429 for its Retry-After, then asks once more', async () => {
    const server = await startAnswerServer((index) =>
      index === 0
        ? { status: 429, body: '{"code":-1003,"msg":"Too many requests."}', headers: { 'retry-after': '1' } }
        : { status: 200, body: documented },
    );
    const listener = restOnlyFeed(server.url);
    await waitFor(() => listener.quotes.length === 1, 3_000, 'the quote after the wait');
    expect(server.seen).toHaveLength(2);
    expect((server.seen[1]?.at as number) - (server.seen[0]?.at as number)).toBeGreaterThanOrEqual(995);
  });

  it('takes a 418 for the ban it is: refused, with how long, and asks no more', async () => {
    const server = await startAnswerServer(() => ({
      status: 418,
      body: '{"code":-1003,"msg":"Way too many requests; IP banned."}',
      headers: { 'retry-after': '120' },
    }));
    const listener = restOnlyFeed(server.url);
    const refused = await waitFor(
      () => listener.states.find((s) => s.state === 'refused' && s.detail.startsWith('HTTP 418')),
      3_000,
      'refused',
    );
    expect(refused.detail).toBe('HTTP 418: Way too many requests; IP banned.; banned for 120 s');
    expect(server.seen).toHaveLength(1);
    expect(listener.quotes).toEqual([]);
  });
});
