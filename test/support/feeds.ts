import { onTestFinished } from 'vitest';
import { BinanceFeed, type BinanceFeedOptions } from '../../src/feeds/binance.ts';
import type {
  ConnectionState,
  FeedListener,
  MarketRequest,
  Quote,
  SourceName,
} from '../../src/feeds/types.ts';
import { createLogger } from '../../src/logger.ts';
import type { ExchangeSimulator, SimulatorOptions } from '../../src/simulator/exchange-simulator.ts';
import type { SimulatorFault } from '../../src/simulator/faults.ts';
import { startSimulator } from './simulator.ts';
import { waitFor } from './wait.ts';

export const silentLogger = createLogger('silent');

/** A FeedListener that records everything it is told. */
export class RecordingListener implements FeedListener {
  readonly quotes: Quote[] = [];
  readonly rejections: { source: SourceName; reason: string }[] = [];
  readonly states: { source: SourceName; state: ConnectionState; detail: string }[] = [];

  quote(quote: Quote): void {
    this.quotes.push(quote);
  }

  rejected(source: SourceName, reason: string): void {
    this.rejections.push({ source, reason });
  }

  connectionState(source: SourceName, state: ConnectionState, detail: string): void {
    this.states.push({ source, state, detail });
  }

  lastState(): ConnectionState | undefined {
    return this.states.at(-1)?.state;
  }

  statesSeen(): ConnectionState[] {
    return this.states.map((s) => s.state);
  }
}

/** Binance pairs as the markets a feed is asked for: `BTCUSDT` → BTC in usdt. */
export function usdtMarkets(pairs: readonly string[]): MarketRequest[] {
  return pairs.map((pair) => ({ symbol: pair.replace(/USDT$/, ''), currency: 'usdt', market: pair }));
}

/** A BinanceFeed, stopped when the test ends (not started). */
export function binanceFeed(options: BinanceFeedOptions): BinanceFeed {
  const feed = new BinanceFeed(options);
  onTestFinished(() => feed.stop());
  return feed;
}

/** A started BinanceFeed on a fresh simulator, once it reports open. */
export async function openBinanceFeed(
  feedOptions: Partial<BinanceFeedOptions> = {},
  simulatorOptions: Partial<SimulatorOptions> = {},
): Promise<{ sim: ExchangeSimulator; feed: BinanceFeed; listener: RecordingListener }> {
  const sim = await startSimulator({
    seed: 42,
    pingIntervalMs: 100,
    maxIncomingPerSecond: 50,
    ...simulatorOptions,
  });
  const listener = new RecordingListener();
  const feed = binanceFeed({
    name: 'binance',
    url: sim.wsBaseUrl,
    markets: usdtMarkets(['BTCUSDT', 'ETHUSDT', 'SHIBUSDT']),
    listener,
    logger: silentLogger,
    stallMs: 1_000,
    backoffBaseMs: 20,
    backoffMaxMs: 100,
    ...feedOptions,
  });
  feed.start();
  await waitFor(() => listener.lastState() === 'open', 3_000, 'the feed to connect');
  return { sim, feed, listener };
}

/**
 * A started BinanceFeed for BTCUSDT on a fresh simulator that answers with `fault` from the
 * start, so the feed never opens until the test lifts it.
 */
export async function binanceFeedUnderFault(
  fault: SimulatorFault,
  feedOptions: Partial<BinanceFeedOptions> = {},
): Promise<{ sim: ExchangeSimulator; listener: RecordingListener }> {
  const sim = await startSimulator();
  sim.setFault(fault, 'binance');
  const listener = new RecordingListener();
  const feed = binanceFeed({
    name: 'binance',
    url: sim.wsBaseUrl,
    markets: usdtMarkets(['BTCUSDT']),
    listener,
    logger: silentLogger,
    backoffBaseMs: 20,
    backoffMaxMs: 50,
    ...feedOptions,
  });
  feed.start();
  return { sim, listener };
}

/** Ticks until a quote for the pair arrives (a tick sent before the server registered the client is lost). */
export async function tickUntilQuoted(
  sim: ExchangeSimulator,
  listener: RecordingListener,
  pair: string,
  ask?: string,
): Promise<Quote> {
  const since = Date.now();
  const symbol = pair.replace(/USDT$/, '');
  return waitFor(
    () => {
      sim.tick(pair, ask);
      return listener.quotes.find((quote) => quote.symbol === symbol && quote.tickTime >= since);
    },
    3_000,
    `a ${pair} quote`,
  );
}
