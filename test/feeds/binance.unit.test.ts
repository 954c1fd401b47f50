import { describe, expect, it, onTestFinished } from 'vitest';
import { BinanceFeed } from '../../src/feeds/binance.ts';
import {
  openBinanceFeed,
  RecordingListener,
  silentLogger,
  tickUntilQuoted,
  usdtMarkets,
} from '../support/feeds.ts';
import { WireClient } from '../support/simulator.ts';
import { waitFor } from '../support/wait.ts';

describe('BinanceFeed', () => {
  it('publishes the ask exactly as quoted, E as tick time and P as change', async () => {
    const { sim, listener } = await openBinanceFeed();
    const observer = await WireClient.open(`${sim.wsBaseUrl}/ws/btcusdt@ticker`);
    onTestFinished(() => observer.close());
    const eventTime = sim.tick('BTCUSDT', '97123.45');
    const wire = (await observer.next()) as { a: string; P: string; E: number };
    const quote = await waitFor(
      () => listener.quotes.find((q) => q.tickTime === eventTime),
      2_000,
      'the quote',
    );
    expect(quote).toEqual({
      symbol: 'BTC',
      currency: 'usdt',
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
    const { sim, feed, listener } = await openBinanceFeed();
    expect(listener.statesSeen()).toEqual(['connecting', 'open']);
    expect(listener.states.every((s) => s.source === 'binance' && s.detail.length > 0)).toBe(true);
    await Promise.all([feed.stop(), feed.stop()]);
    expect(listener.lastState()).toBe('closed');
    expect(listener.statesSeen().filter((state) => state === 'closed')).toHaveLength(1);
    await waitFor(() => sim.connectionCount === 0, 2_000, 'the server to see the close');
  });

  it('rejects negative, NaN and malformed asks without publishing them', async () => {
    const { sim, listener } = await openBinanceFeed();
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
    const { sim, listener } = await openBinanceFeed();
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
    const { sim, listener } = await openBinanceFeed({ streamsPerConnection: 2 });
    await waitFor(() => sim.connectionCount === 2, 2_000, 'two connections');
    expect((await tickUntilQuoted(sim, listener, 'BTCUSDT', '90500')).ask).toBe(90500);
    expect((await tickUntilQuoted(sim, listener, 'SHIBUSDT', '0.00002')).ask).toBe(0.00002);
  });

  it('refuses markets that are not upper-case Binance USDT pairs, each asked for once', () => {
    const options = {
      name: 'binance',
      url: 'ws://127.0.0.1:1',
      listener: new RecordingListener(),
      logger: silentLogger,
    };
    const btc = { symbol: 'BTC', currency: 'usdt', market: 'btcusdt' } as const;
    expect(() => new BinanceFeed({ ...options, markets: [btc] })).toThrow(/upper-case/);
    expect(() => new BinanceFeed({ ...options, markets: [] })).toThrow(/at least one/);
    expect(
      () => new BinanceFeed({ ...options, markets: [{ ...btc, currency: 'toman', market: 'BTCUSDT' }] }),
    ).toThrow(/usdt only/);
    expect(() => new BinanceFeed({ ...options, markets: usdtMarkets(['BTCUSDT', 'BTCUSDT']) })).toThrow(
      /twice/,
    );
  });
});
