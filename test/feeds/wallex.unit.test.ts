import { describe, expect, it, onTestFinished } from 'vitest';
import type { MarketRequest } from '../../src/feeds/types.ts';
import { WallexFeed, type WallexFeedOptions } from '../../src/feeds/wallex.ts';
import { lowestAsk, parseWallexDepth } from '../../src/feeds/wallex-depth.ts';
import { RecordingListener, silentLogger } from '../support/feeds.ts';
import { fixture } from '../support/fixtures.ts';
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

describe("Wallex's order book, on its documented answers (test/fixtures/wallex)", () => {
  const usdc: MarketRequest = { symbol: 'USDC', currency: 'usdt', market: 'USDCUSDT' };

  it("takes the lowest ask of the older docs' BTCTMN book, 1 317 505 698 toman, not the bid", () => {
    const btc: MarketRequest = { symbol: 'BTC', currency: 'toman', market: 'BTCTMN' };
    expect(parseWallexDepth(fixture('wallex/depth-btctmn-old-docs.json'), btc, 3)).toEqual({
      kind: 'read',
      quotes: [{ symbol: 'BTC', currency: 'toman', ask: 1_317_505_698, changePct: null, tickTime: 3 }],
      rejected: [],
    });
  });

  it('finds no ask in the documented empty book, and counts it', () => {
    expect(parseWallexDepth(fixture('wallex/depth-usdcusdt.json'), usdc, 1)).toEqual({
      kind: 'read',
      quotes: [],
      rejected: ['no-sell-orders'],
    });
  });

  it('takes the lowest of the documented sell orders, 82 066 toman, wherever it is in the list', () => {
    const [, entries] = JSON.parse(fixture('wallex/sell-depth-usdttmn-socket.json')) as [string, unknown[]];
    expect(lowestAsk(entries)).toBe(82_066);
    const text = JSON.stringify({ result: { ask: entries, bid: [] }, message: 'ok', success: true });
    const tether: MarketRequest = { symbol: 'USDT', currency: 'toman', market: 'USDTTMN' };
    expect(parseWallexDepth(text, tether, 7)).toEqual({
      kind: 'read',
      quotes: [{ symbol: 'USDT', currency: 'toman', ask: 82_066, changePct: null, tickTime: 7 }],
      rejected: [],
    });
  });

  it.each([
    ['a price that is not a number', [{ price: 'NaN', quantity: '1' }], 'ask-not-a-number'],
    ['a zero price', [{ price: '0', quantity: '1' }], 'ask-not-positive'],
    ['only empty orders', [{ price: '82066', quantity: '0' }], 'no-sell-orders'],
    ['no ask list', undefined, 'asks-missing'],
  ])('rejects %s', (_what, ask, reason) => {
    const text = JSON.stringify({ result: { ask, bid: [] }, success: true });
    expect(parseWallexDepth(text, usdc, 1)).toEqual({ kind: 'read', quotes: [], rejected: [reason] });
  });

  it('finds a body without success: true unreadable', () => {
    expect(parseWallexDepth('{"success":false,"result":{}}', usdc, 1)).toEqual({
      kind: 'unreadable',
      reason: 'not-successful',
    });
  });
});

describe('WallexFeed', () => {
  it('reads the order books when /v1/markets is too slow, then /v1/markets again once it answers', async () => {
    const { sim, listener } = await setup({ timeoutMs: 300, retryMarketsAfterMs: 1_500 });
    await waitFor(() => listener.lastState() === 'open', 2_000, 'open');
    sim.setWallexMarkets({ kind: 'slow', delayMs: 2_000 });
    const switched = await waitFor(
      () => listener.states.find((s) => /the order books/.test(s.detail)),
      3_000,
      'the switch to the order books',
    );
    expect(switched).toMatchObject({ state: 'open' });
    expect(switched.detail).toMatch(/, the order books one every 40 ms \(no answer within 300 ms\)$/);
    const since = Date.now();
    sim.tick('BTCUSDT', '96000.5');
    const fromBook = await waitFor(
      () => listener.quotes.find((q) => q.symbol === 'BTC' && q.tickTime > since && q.changePct === null),
      3_000,
      'a BTC quote from its book',
    );
    expect(fromBook.ask).toBe(Number(sim.tomanAskOf('BTC')));
    expect(listener.statesSeen()).not.toContain('backoff');

    sim.setWallexMarkets({ kind: 'normal' });
    await waitFor(
      () => listener.states.at(-1)?.detail === `polling ${new URL(sim.wallexBaseUrl).host} every 40 ms`,
      4_000,
      'back on /v1/markets',
    );
    const back = Date.now();
    await waitFor(
      () => listener.quotes.some((q) => q.symbol === 'BTC' && q.tickTime > back && q.changePct !== null),
      2_000,
      'a quote from /v1/markets',
    );
  });

  it('reads the order books when /v1/markets is gone (404)', async () => {
    const { sim, listener } = await setup();
    sim.setWallexMarkets({ kind: 'gone' });
    await waitFor(
      () => listener.states.some((s) => /the order books .*\(HTTP 404\)$/.test(s.detail)),
      2_000,
      'the switch',
    );
    const since = Date.now();
    await waitFor(
      () =>
        ['BTC', 'SHIB', 'ETH', 'USDT'].every((symbol) =>
          listener.quotes.some((q) => q.symbol === symbol && q.tickTime >= since),
        ),
      3_000,
      'every market from its book',
    );
    expect(listener.quotes.findLast((q) => q.symbol === 'ETH')?.ask).toBe(Number(sim.askOf('ETHUSDT')));
    expect(listener.rejections).toEqual([]);
  });

  it('does not read the order books when Wallex refuses or rate-limits', async () => {
    const { sim, listener } = await setup();
    await waitFor(() => listener.lastState() === 'open', 2_000, 'open');
    sim.setFault('http-429', 'wallex');
    await waitFor(() => listener.lastState() === 'backoff', 2_000, 'rate limited');
    sim.setFault('geo-block', 'wallex');
    await waitFor(() => listener.lastState() === 'refused', 3_000, 'refused');
    expect(listener.states.some((s) => /order books/.test(s.detail))).toBe(false);
  });

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
