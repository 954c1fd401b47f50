import { describe, expect, it, onTestFinished } from 'vitest';
import { JsonHttpFeed } from '../../src/feeds/json-http.ts';
import type { JsonHttpMapping } from '../../src/feeds/json-http-mapping.ts';
import type { MarketRequest } from '../../src/feeds/types.ts';
import { RecordingListener, silentLogger } from '../support/feeds.ts';
import { startSimulator } from '../support/simulator.ts';
import { waitFor } from '../support/wait.ts';

/** The mapping of the simulator's made-up exchange document (`src/simulator/panel.ts`). */
const panelMapping: JsonHttpMapping = {
  quotes: 'data.markets',
  key: 'pair',
  pair: { separator: '-' },
  ask: 'sell',
  change: 'change24h',
  time: 'updated_at',
};

const markets: MarketRequest[] = [
  { symbol: 'BTC', currency: 'toman', market: 'BTC' },
  { symbol: 'BTC', currency: 'usdt', market: 'BTC' },
  { symbol: 'USDT', currency: 'toman', market: 'USDT' },
];

describe('JsonHttpFeed', () => {
  it("reads a made-up exchange's document through the mapping, over a real socket", async () => {
    const sim = await startSimulator();
    sim.setUsdtBestSellRial('1052990');
    sim.tick('BTCUSDT', '97250.12');
    const listener = new RecordingListener();
    const feed = new JsonHttpFeed({
      name: 'my-panel',
      url: sim.panelUrl,
      markets,
      mapping: panelMapping,
      listener,
      logger: silentLogger,
      pollMs: 40,
      minPollMs: 40,
      headers: { authorization: 'Bearer t' },
    });
    onTestFinished(() => feed.stop());
    const before = Date.now();
    feed.start();
    await waitFor(() => listener.quotes.length >= 3, 2_000, 'three quotes');
    const [btcToman, btcUsdt, tether] = listener.quotes;
    expect(btcToman).toMatchObject({
      source: 'my-panel',
      symbol: 'BTC',
      currency: 'toman',
      ask: 10_240_340_386,
    });
    expect(btcToman?.ask).toBe(Number(sim.tomanAskOf('BTC')));
    expect(btcUsdt).toMatchObject({ symbol: 'BTC', currency: 'usdt', ask: 97250.12 });
    expect(tether).toMatchObject({ symbol: 'USDT', currency: 'toman', ask: 105_299 });
    expect(btcToman?.tickTime).toBeGreaterThanOrEqual(before - 1000);
    expect(typeof btcToman?.changePct).toBe('number');
    expect(listener.rejections).toEqual([]);
    expect(listener.states[0]).toEqual({
      source: 'my-panel',
      state: 'connecting',
      detail: `polling ${new URL(sim.panelUrl).host} every 40 ms`,
    });
  });

  it('reports a panel that breaks: rejections for each market without a sell, refused after three cut bodies', async () => {
    const sim = await startSimulator();
    const listener = new RecordingListener();
    const feed = new JsonHttpFeed({
      name: 'my-panel',
      url: sim.panelUrl,
      markets,
      mapping: panelMapping,
      listener,
      logger: silentLogger,
      pollMs: 30,
      minPollMs: 30,
      backoffMaxMs: 60,
    });
    onTestFinished(() => feed.stop());
    feed.start();
    await waitFor(() => listener.lastState() === 'open', 2_000, 'open');
    sim.setFault('malformed', 'panel');
    await waitFor(
      () => listener.rejections.some((r) => r.reason === 'ask-missing'),
      2_000,
      'a market without its sell',
    );
    sim.setFault('http-5xx', 'panel');
    const refused = await waitFor(() => listener.states.find((s) => s.state === 'refused'), 3_000, 'refused');
    expect(refused.detail).toMatch(/^HTTP 503, 3 times in a row; retrying in \d+ ms$/);
    sim.setFault('none');
    await waitFor(() => listener.lastState() === 'open', 2_000, 'recovery');
  });

  it('refuses a mapping that does not say the currency', () => {
    expect(
      () =>
        new JsonHttpFeed({
          name: 'my-panel',
          url: 'http://127.0.0.1:1/prices',
          markets,
          mapping: { quotes: 'data', ask: 'sell' },
          listener: new RecordingListener(),
          logger: silentLogger,
          pollMs: 1000,
        }),
    ).toThrow(/my-panel: mapping \/: needs `currency`/);
  });
});
