import { describe, expect, it } from 'vitest';
import { binanceFeed, RecordingListener, silentLogger, usdtMarkets } from '../support/feeds.ts';
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
});
