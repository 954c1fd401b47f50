import { describe, expect, it, onTestFinished } from 'vitest';
import { NobitexFeed, type NobitexFeedOptions } from '../../src/feeds/nobitex.ts';
import type { ExchangeSimulator } from '../../src/simulator/exchange-simulator.ts';
import { startAnswerServer } from '../support/answer-server.ts';
import { RecordingListener, silentLogger } from '../support/feeds.ts';
import { fixture } from '../support/fixtures.ts';
import { startSimulator } from '../support/simulator.ts';
import { sleep, waitFor } from '../support/wait.ts';

const tetherMarket = { symbol: 'USDT', currency: 'toman', market: 'usdt' } as const;

/** A NobitexFeed, stopped when the test ends (not started). */
function nobitexFeed(options: NobitexFeedOptions): NobitexFeed {
  const feed = new NobitexFeed(options);
  onTestFinished(() => feed.stop());
  return feed;
}

async function setup(
  options: Partial<NobitexFeedOptions> = {},
): Promise<{ sim: ExchangeSimulator; feed: NobitexFeed; listener: RecordingListener }> {
  const sim = await startSimulator({ retryAfterSeconds: 1 });
  sim.setUsdtBestSellRial('1052990');
  const listener = new RecordingListener();
  const feed = nobitexFeed({
    name: 'nobitex',
    url: sim.nobitexBaseUrl,
    markets: [tetherMarket],
    pollMs: 40,
    minPollMs: 40,
    backoffMaxMs: 100,
    timeoutMs: 300,
    listener,
    logger: silentLogger,
    ...options,
  });
  feed.start();
  await waitFor(() => listener.quotes.length > 0, 2_000, 'the first tether quote');
  return { sim, feed, listener };
}

describe('NobitexFeed', () => {
  it('publishes bestSell in toman: rial ÷ 10', async () => {
    const before = Date.now();
    const { sim, listener } = await setup();
    const first = listener.quotes[0];
    expect(first).toMatchObject({ symbol: 'USDT', currency: 'toman', ask: 105299 });
    expect(typeof first?.changePct).toBe('number');
    expect(first?.tickTime).toBeGreaterThanOrEqual(before);
    expect(first?.source).toBe('nobitex');
    expect(listener.statesSeen().slice(0, 2)).toEqual(['connecting', 'open']);

    sim.setUsdtBestSellRial('1060000');
    await waitFor(() => listener.quotes.at(-1)?.ask === 106000, 2_000, 'the new rate');
    expect(listener.rejections).toEqual([]);
  });

  it('quotes coins from their rial markets ÷ 10 and their tether markets, in one request', async () => {
    const { sim, listener } = await setup({
      markets: [
        tetherMarket,
        { symbol: 'BTC', currency: 'toman', market: 'btc' },
        { symbol: 'SHIB', currency: 'toman', market: 'shib', coinsPerQuote: 1000 },
        { symbol: 'BTC', currency: 'usdt', market: 'btc' },
        { symbol: 'ETH', currency: 'usdt', market: 'eth' },
      ],
    });
    sim.tick('BTCUSDT', '97250.12');
    sim.tick('SHIBUSDT', '0.00002193');
    const since = Date.now();
    const latest = (symbol: string, currency: string) =>
      listener.quotes.findLast((q) => q.symbol === symbol && q.currency === currency && q.tickTime >= since);
    await waitFor(
      () =>
        latest('BTC', 'toman') && latest('SHIB', 'toman') && latest('BTC', 'usdt') && latest('ETH', 'usdt'),
      2_000,
      'a quote of each market',
    );
    const rial = (
      (await (await fetch(`${sim.nobitexBaseUrl}/market/stats?srcCurrency=btc&dstCurrency=rls`)).json()) as {
        stats: Record<string, { bestSell: string }>;
      }
    ).stats['btc-rls']?.bestSell;
    expect(rial).toBe('102403403860');
    expect(latest('BTC', 'toman')).toMatchObject({ source: 'nobitex', ask: Number(rial) / 10 });
    expect(latest('BTC', 'toman')?.ask).toBe(Number(sim.tomanAskOf('BTC')));
    // Nobitex's shib market prices a thousand SHIB: 23 092 rial = 2 309.2 toman, 2.3092 per coin.
    expect(latest('SHIB', 'toman')?.ask).toBe(2.3092);
    expect(latest('BTC', 'usdt')?.ask).toBe(97250.12);
    expect(latest('ETH', 'usdt')?.ask).toBe(Number(sim.askOf('ETHUSDT')));
    expect(listener.rejections).toEqual([]);
    // One request a round for both quote currencies: a round every 40 ms.
    expect(listener.states[0]?.detail).toBe(`polling ${new URL(sim.nobitexBaseUrl).host} every 40 ms`);
  });

  it('is refused while geo-blocked, and open again once the block is lifted', async () => {
    const { sim, listener } = await setup();
    sim.setFault('geo-block', 'nobitex');
    const refused = await waitFor(() => listener.states.find((s) => s.state === 'refused'), 2_000, 'refused');
    expect(refused.detail).toMatch(/^HTTP 451: Unavailable for legal reasons; retrying in \d+ ms$/);
    sim.setFault('none');
    await waitFor(() => listener.lastState() === 'open', 2_000, 'recovery');
  });

  it("honours the simulator's 429 backOff, then recovers", async () => {
    const { sim, listener } = await setup();
    sim.setFault('http-429', 'nobitex');
    const limited = await waitFor(() => listener.states.find((s) => s.state === 'backoff'), 2_000, '429');
    expect(limited.detail).toBe('rate limited (HTTP 429, back-off 1 s in the body); next request in 1000 ms');
    const limitedAt = Date.now();
    const quotesBefore = listener.quotes.length;
    sim.setFault('none');
    await waitFor(() => listener.quotes.length > quotesBefore, 3_000, 'a quote after the wait');
    expect(Date.now() - limitedAt).toBeGreaterThanOrEqual(900);
    expect(listener.lastState()).toBe('open');
  });

  it('backs off on 5xx, timeouts and dropped connections, and recovers from each', async () => {
    const { sim, listener } = await setup();
    const cases = [
      ['http-5xx', /^HTTP 503; retrying in \d+ ms$/],
      ['stall', /^no answer within 300 ms; retrying in \d+ ms$/],
      ['drop', /^request failed/],
    ] as const;
    for (const [fault, detail] of cases) {
      const seen = listener.states.length;
      sim.setFault(fault, 'nobitex');
      const failure = await waitFor(
        () => listener.states.slice(seen).find((s) => s.state === 'backoff'),
        2_000,
        fault,
      );
      expect(failure.detail).toMatch(detail);
      sim.setFault('none');
      await waitFor(() => listener.lastState() === 'open', 2_000, `recovery from ${fault}`);
    }
    expect(listener.rejections).toEqual([]);
  });

  it('rejects negative, NaN and malformed bestSell values without publishing them', async () => {
    const { sim, listener } = await setup();
    const cases = [
      ['negative', ['best-sell-not-positive']],
      ['nan', ['best-sell-not-a-number']],
      ['malformed', ['invalid-json', 'best-sell-missing']],
    ] as const;
    for (const [fault, reasons] of cases) {
      listener.rejections.length = 0;
      sim.setFault(fault, 'nobitex');
      await waitFor(
        () => reasons.every((r) => listener.rejections.some((x) => x.reason === r)),
        2_000,
        fault,
      );
      expect(listener.rejections.every((r) => r.source === 'nobitex')).toBe(true);
    }
    const published = listener.quotes.length;
    await sleep(100);
    expect(listener.quotes.length).toBe(published);
    expect(listener.quotes.every((quote) => quote.ask === 105299)).toBe(true);
  });

  it('passes an absurd but valid rate on: the collector guard judges jumps', async () => {
    const { sim, listener } = await setup();
    sim.setFault('absurd', 'nobitex');
    await waitFor(() => listener.quotes.some((quote) => quote.ask === 105_299_000), 2_000, 'the absurd rate');
    expect(listener.rejections).toEqual([]);
  });

  it('asks for both quote currencies in one request, as TraderBot/nerkh', async () => {
    const server = await startAnswerServer(() => ({
      status: 200,
      body: fixture('nobitex/market-stats-btc-rls.json'),
    }));
    const listener = new RecordingListener();
    nobitexFeed({
      name: 'nobitex',
      url: server.url,
      markets: [
        tetherMarket,
        { symbol: 'BTC', currency: 'toman', market: 'btc' },
        { symbol: 'ETH', currency: 'usdt', market: 'eth' },
      ],
      pollMs: 50,
      minPollMs: 50,
      listener,
      logger: silentLogger,
    }).start();
    await waitFor(() => listener.quotes.length > 0, 2_000, 'a quote');
    // No srcCurrency: every market Nobitex lists, so no code it does not list can fail the request.
    expect(server.seen[0]?.url).toBe('/market/stats?dstCurrency=rls,usdt');
    expect(server.seen[0]?.headers['user-agent']).toBe('TraderBot/nerkh');
    // The documented example: btc-rls bestSell 749 976 360 rial = 74 997 636 toman, +9.38 %.
    expect(listener.quotes[0]).toMatchObject({
      symbol: 'BTC',
      currency: 'toman',
      ask: 74_997_636,
      changePct: 9.38,
    });
    expect(listener.rejections.map((r) => r.reason)).toEqual(['market-missing', 'market-missing']);
  });

  it('sends the configured bot name, and refuses one that is not an HTTP token', () => {
    expect(() =>
      nobitexFeed({
        name: 'nobitex',
        url: 'http://127.0.0.1:1',
        markets: [tetherMarket],
        pollMs: 3000,
        botName: 'a b',
        listener: new RecordingListener(),
        logger: silentLogger,
      }),
    ).toThrow('bot name "a b" must be an HTTP token without "/"');
  });

  it("waits out the documented 429's backOff, which comes in the body with no Retry-After", async () => {
    // Nobitex's documented body, with a 2 s backOff instead of 12 to keep the test short.
    const limited = JSON.stringify({ ...JSON.parse(fixture('nobitex/too-many-requests.json')), backOff: 2 });
    const server = await startAnswerServer((index) =>
      index === 1
        ? { status: 429, body: limited }
        : { status: 200, body: fixture('nobitex/market-stats-usdt-rls-placeholders.json') },
    );
    const listener = new RecordingListener();
    nobitexFeed({
      name: 'nobitex',
      url: server.url,
      markets: [tetherMarket],
      pollMs: 100,
      minPollMs: 100,
      listener,
      logger: silentLogger,
    }).start();
    await waitFor(() => server.seen.length >= 4, 5_000, 'four requests');
    const [first, second, third, fourth] = server.seen.map((request) => request.at) as [
      number,
      number,
      number,
      number,
    ];
    expect(second - first).toBeGreaterThanOrEqual(95);
    expect(second - first).toBeLessThan(1_000);
    // After the 429: not one request before the 2 s the body asked for.
    expect(third - second).toBeGreaterThanOrEqual(1_995);
    expect(third - second).toBeLessThan(4_000);
    expect(fourth - third).toBeLessThan(1_000);
    expect(listener.states.map((s) => s.detail)).toContain(
      'rate limited (HTTP 429, back-off 2 s in the body); next request in 2000 ms',
    );
    expect(listener.states.some((s) => s.state === 'refused')).toBe(false);
    expect(listener.lastState()).toBe('open');
    // The recorded answer's tether: 271 500 rial = 27 150 toman, its −100 % change a placeholder.
    expect(listener.quotes.at(-1)).toMatchObject({ symbol: 'USDT', ask: 27_150, changePct: null });
  });

  it('treats a backOff of a minute or more as a ban: refused, so coins fail over at once', async () => {
    const server = await startAnswerServer(() => ({
      status: 429,
      body: JSON.stringify({ ...JSON.parse(fixture('nobitex/too-many-requests.json')), backOff: 120 }),
    }));
    const listener = new RecordingListener();
    nobitexFeed({
      name: 'nobitex',
      url: server.url,
      markets: [tetherMarket],
      pollMs: 100,
      minPollMs: 100,
      listener,
      logger: silentLogger,
    }).start();
    const refused = await waitFor(() => listener.states.find((s) => s.state === 'refused'), 2_000, 'refused');
    expect(refused.detail).toBe('banned (HTTP 429, back-off 120 s in the body); next request in 120000 ms');
    await sleep(300);
    expect(server.seen).toHaveLength(1);
  });

  it('never publishes a closed market, and publishes placeholder changes as null, counting both', async () => {
    const { sim, listener } = await setup({
      markets: [tetherMarket, { symbol: 'BTC', currency: 'toman', market: 'btc' }],
    });
    sim.setNobitexCondition('closed', ['btc-rls']);
    sim.setNobitexCondition('placeholders', ['usdt-rls']);
    const since = listener.quotes.length;
    await waitFor(
      () => listener.rejections.some((r) => r.reason === 'market-closed'),
      2_000,
      'a closed market',
    );
    await waitFor(
      () => listener.quotes.slice(since).some((q) => q.symbol === 'USDT' && q.changePct === null),
      2_000,
      'a placeholder change',
    );
    const after = listener.quotes.length;
    await sleep(150);
    expect(listener.quotes.slice(after).some((q) => q.symbol === 'BTC')).toBe(false);
    expect(listener.rejections.some((r) => r.reason === 'day-change-placeholder')).toBe(true);
    sim.setNobitexCondition('normal');
    await waitFor(() => listener.quotes.slice(after).some((q) => q.symbol === 'BTC'), 2_000, 'BTC again');
  });

  it('keeps at least 3 s between polls unless told otherwise', () => {
    const listener = new RecordingListener();
    const feed = nobitexFeed({
      name: 'nobitex',
      url: 'http://127.0.0.1:1',
      markets: [tetherMarket],
      pollMs: 500,
      listener,
      logger: silentLogger,
    });
    feed.start();
    expect(listener.states[0]?.detail).toBe('polling 127.0.0.1:1 every 3000 ms');
  });

  it('stops promptly, even with a request in flight, and polls no more', async () => {
    const { sim, feed, listener } = await setup({ timeoutMs: 5_000 });
    sim.setFault('stall', 'nobitex');
    await sleep(100);
    const started = Date.now();
    await feed.stop();
    expect(Date.now() - started).toBeLessThan(500);
    expect(listener.lastState()).toBe('closed');
    const after = listener.states.length + listener.quotes.length;
    sim.setFault('none');
    await sleep(150);
    expect(listener.states.length + listener.quotes.length).toBe(after);
  });
});

describe('a code Nobitex does not list never costs the other coins their prices', () => {
  const markets = [
    tetherMarket,
    { symbol: 'BTC', currency: 'toman', market: 'btc' },
    { symbol: 'NOPE', currency: 'toman', market: 'nope' },
  ] as const;
  const documented = () => JSON.parse(fixture('nobitex/market-stats-btc-rls.json'));

  it('is never named in the request, so an answer that fails on an unknown code cannot happen to it', async () => {
    // An exchange that fails the whole request when srcCurrency names a code it does not list.
    const server = await startAnswerServer((_index, url) =>
      new URL(url, 'http://x').searchParams.get('srcCurrency')?.includes('nope')
        ? { status: 400, body: JSON.stringify({ status: 'failed', code: 'InvalidCurrency' }) }
        : {
            status: 200,
            body: JSON.stringify({
              status: 'ok',
              stats: { ...documented().stats, 'usdt-rls': documented().stats['btc-rls'] },
            }),
          },
    );
    const listener = new RecordingListener();
    nobitexFeed({
      name: 'nobitex',
      url: server.url,
      markets,
      pollMs: 50,
      minPollMs: 50,
      listener,
      logger: silentLogger,
    }).start();
    await waitFor(() => listener.quotes.some((q) => q.symbol === 'BTC'), 2_000, 'BTC');
    expect(server.seen.every((request) => !request.url.includes('srcCurrency'))).toBe(true);
    // BTC and tether priced; the unlisted coin alone is missing.
    expect(listener.quotes.find((q) => q.symbol === 'BTC')?.ask).toBe(74_997_636);
    expect(listener.quotes.some((q) => q.symbol === 'USDT')).toBe(true);
    expect(listener.rejections.map((r) => r.reason)).toContain('market-missing');
    expect(listener.states.some((s) => s.state === 'refused')).toBe(false);
  });

  it('when Nobitex silently leaves the code out, that coin alone is missing and fails over', async () => {
    const server = await startAnswerServer(() => ({
      status: 200,
      body: fixture('nobitex/market-stats-btc-rls.json'),
    }));
    const listener = new RecordingListener();
    nobitexFeed({
      name: 'nobitex',
      url: server.url,
      markets,
      pollMs: 50,
      minPollMs: 50,
      listener,
      logger: silentLogger,
    }).start();
    await waitFor(() => listener.quotes.some((q) => q.symbol === 'BTC'), 2_000, 'BTC');
    expect(listener.quotes.some((q) => q.symbol === 'NOPE')).toBe(false);
    expect(listener.rejections.filter((r) => r.reason === 'market-missing').length).toBeGreaterThan(0);
  });

  it("reads SHIB under Nobitex's newer code 1k_shib, a thousand SHIB, as per one coin", async () => {
    const btc = documented().stats['btc-rls'];
    const body = JSON.stringify({ status: 'ok', stats: { '1k_shib-rls': { ...btc, bestSell: '23092' } } });
    const server = await startAnswerServer(() => ({ status: 200, body }));
    const listener = new RecordingListener();
    nobitexFeed({
      name: 'nobitex',
      url: server.url,
      markets: [{ symbol: 'SHIB', currency: 'toman', market: 'shib', coinsPerQuote: 1000 }],
      pollMs: 50,
      minPollMs: 50,
      listener,
      logger: silentLogger,
    }).start();
    await waitFor(() => listener.quotes.length > 0, 2_000, 'SHIB');
    // 23 092 rial a thousand SHIB = 2 309.2 toman a thousand = 2.3092 toman a coin.
    expect(listener.quotes[0]).toMatchObject({ symbol: 'SHIB', ask: 2.3092 });
  });
});
