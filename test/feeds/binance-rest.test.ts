import { describe, expect, it } from 'vitest';
import { startSimulator } from '../simulator/helpers.ts';
import { waitFor } from '../support/wait.ts';
import { binanceFeed, RecordingListener, silentLogger } from './helpers.ts';

describe('BinanceFeed', () => {
  it('bootstraps from REST, keeping good pairs when one symbol is unknown to Binance', async () => {
    const listener = new RecordingListener();
    const sim = await startSimulator({ seed: 5 });
    const feed = binanceFeed({
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
});
