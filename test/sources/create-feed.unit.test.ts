import { describe, expect, it, onTestFinished } from 'vitest';
import { loadCatalog } from '../../src/catalog/catalog-file.ts';
import { createFeed } from '../../src/sources/create-feed.ts';
import { parseSources } from '../../src/sources/load-sources.ts';
import { SourcesFileError } from '../../src/sources/problem.ts';
import { startAnswerServer } from '../support/answer-server.ts';
import { RecordingListener, silentLogger } from '../support/feeds.ts';
import { fixture } from '../support/fixtures.ts';
import { waitFor } from '../support/wait.ts';

const catalog = loadCatalog();

/** The one source of a file that routes every coin to it. */
function onlySource(entry: string) {
  const setup = parseSources(
    `sources:\n  - ${entry}\nroutes:\n  default: { usdt: [only] }\n  coins:\n    USDT: { toman: [only] }\n`,
    'sources.yaml',
    { catalog, env: {} },
  );
  return setup.sources[0] as (typeof setup.sources)[number];
}

describe('createFeed', () => {
  it("sends a Nobitex source's bot_name as User-Agent: TraderBot/<bot_name>", async () => {
    const server = await startAnswerServer(() => ({
      status: 200,
      body: fixture('nobitex/market-stats-usdt-rls-placeholders.json'),
    }));
    const listener = new RecordingListener();
    const feed = createFeed(
      onlySource(`{ name: only, kind: nobitex, url: "${server.url}", bot_name: my-desk }`),
      [{ symbol: 'USDT', currency: 'toman', market: 'usdt' }],
      { listener, logger: silentLogger, tuning: { pollMs: 50, minPollMs: 50 } },
    );
    onTestFinished(() => feed.stop());
    feed.start();
    await waitFor(() => listener.quotes.length > 0, 2_000, 'a quote');
    expect(server.seen[0]?.headers['user-agent']).toBe('TraderBot/my-desk');
    expect(listener.quotes[0]).toMatchObject({ symbol: 'USDT', ask: 27_150 });
  });

  it('refuses a bot_name that cannot follow TraderBot/', () => {
    expect(() =>
      onlySource('{ name: only, kind: nobitex, url: "https://apiv2.nobitex.ir", bot_name: "a/b" }'),
    ).toThrow(SourcesFileError);
  });

  it("waits timeout_seconds for Wallex's /v1/markets, then reads the order books", async () => {
    const book = JSON.stringify({
      result: { ask: [{ price: '105400', quantity: '12.5', sum: '1317500' }], bid: [] },
      message: 'ok',
      success: true,
    });
    const server = await startAnswerServer((_index, url) =>
      url.startsWith('/v1/markets')
        ? { status: 200, body: '{"success":true,"result":{"symbols":{}}}', delayMs: 1_500 }
        : { status: 200, body: book },
    );
    const listener = new RecordingListener();
    const feed = createFeed(
      onlySource(`{ name: only, kind: wallex, url: "${server.url}", timeout_seconds: 1 }`),
      [{ symbol: 'USDT', currency: 'toman', market: 'USDTTMN' }],
      { listener, logger: silentLogger, tuning: { pollMs: 50, minPollMs: 50 } },
    );
    onTestFinished(() => feed.stop());
    const startedAt = Date.now();
    feed.start();
    await waitFor(() => listener.quotes.length > 0, 5_000, 'a quote from the book');
    // /v1/markets first; the book only once the 1 s timeout had run out (the detail says which).
    const urls = server.seen.map((request) => request.url);
    expect(urls[0]).toBe('/v1/markets');
    const bookAt = urls.indexOf('/v1/depth?symbol=USDTTMN');
    expect(urls.slice(0, bookAt).every((url) => url === '/v1/markets')).toBe(true);
    const waited = (server.seen[bookAt]?.at as number) - startedAt;
    expect(waited).toBeGreaterThanOrEqual(950);
    // With the default 5 s, /v1/markets (1.5 s) would have answered and no book been asked for.
    expect(waited).toBeLessThan(4_000);
    expect(listener.quotes[0]).toMatchObject({ symbol: 'USDT', currency: 'toman', ask: 105_400 });
    expect(listener.states.at(-1)?.detail).toMatch(/\(no answer within 1000 ms\)$/);
  });

  it('refuses a Wallex timeout_seconds outside 1–120', () => {
    expect(() =>
      onlySource('{ name: only, kind: wallex, url: "https://api.wallex.ir", timeout_seconds: 0 }'),
    ).toThrow(SourcesFileError);
  });
});
