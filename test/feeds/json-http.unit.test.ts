import http from 'node:http';
import type { AddressInfo } from 'node:net';
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
  pair: { separator: '-', suffixes: { TMN: 'toman', USDT: 'usdt' } },
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

  it('asks one URL per market in turn, spread evenly over the interval, never closer than the limit', async () => {
    const asked: { path: string; at: number }[] = [];
    const server = http.createServer((req, res) => {
      asked.push({ path: req.url ?? '', at: Date.now() });
      const ask = req.url?.includes('USDT_IRT') ? '105299' : '10234320000';
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ asks: [[ask, '1']], bids: [['1', '1']] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const { port } = server.address() as AddressInfo;
    const listener = new RecordingListener();
    const feed = new JsonHttpFeed({
      name: 'book',
      url: `http://127.0.0.1:${port}/ob/{symbol}_{quote}/`,
      markets: [
        { symbol: 'BTC', currency: 'toman', market: 'BTC' },
        { symbol: 'USDT', currency: 'toman', market: 'USDT' },
      ],
      mapping: { ask: 'asks.0.0', pair: { suffixes: { IRT: 'toman', USDT: 'usdt' } } },
      listener,
      logger: silentLogger,
      // 10 ms asked, but the exchange allows 600 a minute: one request per 100 ms at most.
      pollMs: 10,
      maxRequestsPerMinute: 600,
    });
    onTestFinished(() => feed.stop());
    feed.start();
    await waitFor(() => asked.length >= 5, 3_000, 'five requests');
    await feed.stop();
    expect(asked.slice(0, 4).map((request) => request.path)).toEqual([
      '/ob/BTC_IRT/',
      '/ob/USDT_IRT/',
      '/ob/BTC_IRT/',
      '/ob/USDT_IRT/',
    ]);
    const gaps = asked.slice(1).map((request, i) => request.at - (asked[i]?.at ?? 0));
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(95);
    expect(listener.quotes.slice(0, 2)).toMatchObject([
      { source: 'book', symbol: 'BTC', currency: 'toman', ask: 10_234_320_000 },
      { source: 'book', symbol: 'USDT', currency: 'toman', ask: 105_299 },
    ]);
    expect(listener.states[0]?.detail).toBe(`polling 127.0.0.1:${port}: 2 documents, one every 100 ms`);
  });

  it('takes a market the exchange does not list (404 or 400) as that market missing, not the source down', async () => {
    const server = http.createServer((req, res) => {
      const listed = req.url?.includes('BTC');
      res.writeHead(listed ? 200 : req.url?.includes('NOPE') ? 404 : 400, {
        'content-type': 'application/json',
      });
      res.end(
        listed ? JSON.stringify({ asks: [['10234320000', '1']] }) : '{"code":-1121,"msg":"Invalid symbol."}',
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const { port } = server.address() as AddressInfo;
    const listener = new RecordingListener();
    const feed = new JsonHttpFeed({
      name: 'book',
      url: `http://127.0.0.1:${port}/depth?symbol={symbol}{quote}`,
      markets: [
        { symbol: 'BTC', currency: 'toman', market: 'BTC' },
        { symbol: 'NOPE', currency: 'toman', market: 'NOPE' },
        { symbol: 'GONE', currency: 'toman', market: 'GONE' },
      ],
      mapping: { ask: 'asks.0.0', pair: { suffixes: { IRT: 'toman' } } },
      listener,
      logger: silentLogger,
      pollMs: 10,
      minPollMs: 10,
    });
    onTestFinished(() => feed.stop());
    feed.start();
    await waitFor(() => listener.quotes.length >= 2, 2_000, 'BTC twice');
    expect(listener.rejections.map((r) => r.reason)).toContain('market-missing');
    expect(listener.states.map((s) => s.state)).not.toContain('backoff');
    expect(listener.lastState()).toBe('open');
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
