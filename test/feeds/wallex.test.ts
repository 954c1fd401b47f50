import { describe, expect, it, onTestFinished } from 'vitest';
import type { MarketRequest } from '../../src/feeds/types.ts';
import { WallexFeed, type WallexFeedOptions } from '../../src/feeds/wallex.ts';
import { RecordingListener, silentLogger } from '../support/feeds.ts';
import { startSimulator } from '../support/simulator.ts';
import { waitFor } from '../support/wait.ts';

const markets: MarketRequest[] = [
  { symbol: 'BTC', currency: 'toman', market: 'BTCTMN' },
  { symbol: 'SHIB', currency: 'toman', market: 'SHIBTMN' },
  { symbol: 'ETH', currency: 'usdt', market: 'ETHUSDT' },
  { symbol: 'USDT', currency: 'toman', market: 'USDTTMN' },
];

async function setup(options: Partial<WallexFeedOptions> = {}) {
  const sim = await startSimulator();
  const listener = new RecordingListener();
  const feed = new WallexFeed({
    name: 'wallex',
    url: sim.wallexBaseUrl,
    markets,
    listener,
    logger: silentLogger,
    pollMs: 40,
    minPollMs: 40,
    backoffMaxMs: 80,
    ...options,
  });
  onTestFinished(() => feed.stop());
  feed.start();
  return { sim, feed, listener };
}

describe('WallexFeed', () => {
  it('publishes TMN askPrice as the toman quote exactly as sent, no ÷ 10, and USDT markets in tether', async () => {
    const { sim, listener } = await setup();
    sim.setUsdtBestSellRial('1052990');
    sim.tick('BTCUSDT', '97250.12');
    sim.tick('SHIBUSDT', '0.00002193');
    const since = Date.now();
    const latest = (symbol: string) =>
      listener.quotes.findLast((q) => q.symbol === symbol && q.tickTime >= since);
    await waitFor(() => ['BTC', 'SHIB', 'ETH', 'USDT'].every(latest), 2_000, 'a quote of each market');
    expect(latest('BTC')).toMatchObject({ source: 'wallex', currency: 'toman', ask: 10_240_340_386 });
    expect(latest('BTC')?.ask).toBe(Number(sim.tomanAskOf('BTC')));
    expect(latest('SHIB')).toMatchObject({ currency: 'toman', ask: 2.3092 });
    expect(latest('ETH')).toMatchObject({ currency: 'usdt', ask: Number(sim.askOf('ETHUSDT')) });
    expect(latest('USDT')).toMatchObject({ currency: 'toman', ask: 105_299 });
    expect(typeof latest('BTC')?.changePct).toBe('number');
    expect(listener.rejections).toEqual([]);
    expect(listener.statesSeen().slice(0, 2)).toEqual(['connecting', 'open']);
  });

  it('is refused while geo-blocked, and open again with quotes once the block is lifted', async () => {
    const { sim, listener } = await setup();
    await waitFor(() => listener.lastState() === 'open', 2_000, 'open');
    sim.setFault('geo-block', 'wallex');
    const refused = await waitFor(() => listener.states.find((s) => s.state === 'refused'), 2_000, 'refused');
    expect(refused.detail).toMatch(/^HTTP 451: Unavailable For Legal Reasons; retrying in \d+ ms$/);
    const quotes = listener.quotes.length;
    sim.setFault('none');
    await waitFor(
      () => listener.lastState() === 'open' && listener.quotes.length > quotes,
      2_000,
      'recovery',
    );
  });

  it('rejects a market Wallex does not list, and refuses market codes that are not Wallex symbols', async () => {
    const { listener } = await setup({ markets: [{ symbol: 'NOPE', currency: 'toman', market: 'NOPETMN' }] });
    await waitFor(() => listener.rejections.length > 0, 2_000, 'a rejection');
    expect(listener.rejections[0]).toEqual({ source: 'wallex', reason: 'market-missing' });
    expect(
      () =>
        new WallexFeed({
          name: 'wallex',
          url: 'http://127.0.0.1:1',
          markets: [{ symbol: 'BTC', currency: 'toman', market: 'btc-tmn' }],
          listener,
          logger: silentLogger,
          pollMs: 1000,
        }),
    ).toThrow(/upper-case Wallex symbol/);
  });
});
