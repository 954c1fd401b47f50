import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { BodyResult } from '../../src/feeds/body-result.ts';
import { HttpPoller, type HttpPollOptions } from '../../src/feeds/http-poll.ts';
import { RecordingListener, silentLogger } from '../support/feeds.ts';
import { waitFor } from '../support/wait.ts';

interface Answer {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

const good = (ask: number): Answer => ({ status: 200, body: JSON.stringify({ ask }) });

/** A local HTTP server answering from a script, then with `fallback`; it records each request. */
async function scriptedServer(script: Answer[], fallback: Answer = good(100)) {
  const requests: { url: string; headers: http.IncomingHttpHeaders }[] = [];
  const server = http.createServer((req, res) => {
    requests.push({ url: req.url ?? '', headers: req.headers });
    const answer = script.shift() ?? fallback;
    res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
    res.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, script };
}

/** Test bodies: `{"ask": n}` is a quote of BTC in usdt, anything else is unreadable. */
function parse(text: string, receivedAt: number): BodyResult {
  try {
    const { ask } = JSON.parse(text) as { ask: number };
    return {
      kind: 'read',
      quotes: [{ symbol: 'BTC', currency: 'usdt', ask, changePct: null, tickTime: receivedAt }],
      rejected: [],
    };
  } catch {
    return { kind: 'unreadable', reason: 'invalid-json' };
  }
}

function startPoller(base: string, options: Partial<HttpPollOptions> = {}) {
  const listener = new RecordingListener();
  const poller = new HttpPoller({
    source: 'panel',
    requests: [{ url: `${base}/prices`, parse }],
    pollMs: 20,
    minPollMs: 20,
    timeoutMs: 500,
    backoffMaxMs: 40,
    listener,
    logger: silentLogger,
    ...options,
  });
  onTestFinished(() => poller.stop());
  poller.start();
  return { poller, listener };
}

const geoBlock: Answer = {
  status: 451,
  body: '{"code":0,"msg":"Service unavailable from a restricted location"}',
};

describe('HttpPoller', () => {
  it('takes a 418 for a ban: refused, and asks nothing before its Retry-After', async () => {
    const { base, requests } = await scriptedServer([
      { status: 418, body: '{"code":-1003,"msg":"IP banned"}', headers: { 'retry-after': '2' } },
    ]);
    const { listener } = startPoller(base);
    const refused = await waitFor(() => listener.states.find((s) => s.state === 'refused'), 2_000, 'refused');
    expect(refused.detail).toBe('banned (HTTP 418); next request in 2000 ms');
    const bannedAt = Date.now();
    await waitFor(() => requests.length >= 2, 4_000, 'the request after the ban');
    expect(Date.now() - bannedAt).toBeGreaterThanOrEqual(1_900);
    await waitFor(() => listener.lastState() === 'open', 2_000, 'open again');
  });

  it('takes a 429 asking a minute or more for a ban, and a shorter one for a wait', async () => {
    const { base } = await scriptedServer([
      { status: 429, body: '{}', headers: { 'retry-after': '1' } },
      { status: 429, body: '{}', headers: { 'retry-after': '90' } },
    ]);
    const { listener } = startPoller(base);
    await waitFor(() => listener.states.some((s) => s.state === 'refused'), 3_000, 'the long wait');
    expect(
      listener.states.map((s) => `${s.state}: ${s.detail}`).filter((line) => line.includes('429')),
    ).toEqual([
      'backoff: rate limited (HTTP 429); next request in 1000 ms',
      'refused: banned (HTTP 429); next request in 90000 ms',
    ]);
  });

  it('reports a 451 as refused with the reason, keeps trying, and is open again on the next good body', async () => {
    const { base } = await scriptedServer([geoBlock, geoBlock], good(97_000));
    const { listener } = startPoller(base);
    await waitFor(() => listener.quotes.length > 0, 2_000, 'a quote after the block');
    const refusals = listener.states.filter((s) => s.state === 'refused');
    expect(refusals).toHaveLength(2);
    expect(refusals[0]?.detail).toMatch(
      /^HTTP 451: Service unavailable from a restricted location; retrying in \d+ ms$/,
    );
    expect(listener.statesSeen()).toEqual(['connecting', 'refused', 'refused', 'open']);
    expect(listener.states.every((s) => s.source === 'panel')).toBe(true);
    expect(listener.quotes[0]).toMatchObject({
      source: 'panel',
      symbol: 'BTC',
      currency: 'usdt',
      ask: 97_000,
    });
  });

  it('reports a 403 as refused', async () => {
    const { base } = await scriptedServer([{ status: 403, body: '{"message":"Forbidden"}' }]);
    const { listener } = startPoller(base);
    const refused = await waitFor(() => listener.states.find((s) => s.state === 'refused'), 2_000, 'refused');
    expect(refused.detail).toMatch(/^HTTP 403: Forbidden; retrying in \d+ ms$/);
  });

  it('backs off on the first two 5xx answers and reports the third in a row as refused', async () => {
    const down: Answer = { status: 503, body: '{"message":"Service Unavailable"}' };
    const { base } = await scriptedServer([down, down, down]);
    const { listener } = startPoller(base);
    await waitFor(() => listener.lastState() === 'open', 3_000, 'recovery');
    expect(listener.statesSeen()).toEqual(['connecting', 'backoff', 'backoff', 'refused', 'open']);
    expect(listener.states[3]?.detail).toMatch(/^HTTP 503, 3 times in a row; retrying in \d+ ms$/);
  });

  it('counts a good body between failures: two 5xx, a good body, two 5xx are never a refusal', async () => {
    const down: Answer = { status: 500, body: '' };
    const { base } = await scriptedServer([down, down, good(1), down, down]);
    const { listener } = startPoller(base);
    await waitFor(() => listener.quotes.length >= 2, 3_000, 'two quotes');
    expect(listener.statesSeen()).not.toContain('refused');
  });

  it('rejects unreadable bodies, and reports the third in a row as refused', async () => {
    const junk: Answer = { status: 200, body: '<html>maintenance</html>' };
    const { base } = await scriptedServer([junk, junk, junk]);
    const { listener } = startPoller(base);
    await waitFor(() => listener.quotes.length > 0, 3_000, 'a quote after the junk');
    expect(listener.rejections).toEqual([
      { source: 'panel', reason: 'invalid-json' },
      { source: 'panel', reason: 'invalid-json' },
      { source: 'panel', reason: 'invalid-json' },
    ]);
    const refused = listener.states.find((s) => s.state === 'refused');
    expect(refused?.detail).toMatch(
      /^unreadable body \(invalid-json\), 3 times in a row; retrying in \d+ ms$/,
    );
    expect(listener.lastState()).toBe('open');
  });

  it('honours Retry-After on 429', async () => {
    const { base } = await scriptedServer([{ status: 429, body: '{}', headers: { 'retry-after': '1' } }]);
    const started = Date.now();
    const { listener } = startPoller(base);
    await waitFor(() => listener.quotes.length > 0, 10_000, 'a quote after the wait');
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(listener.states[1]).toMatchObject({
      state: 'backoff',
      detail: 'rate limited (HTTP 429); next request in 1000 ms',
    });
  });

  it('sends the configured headers and makes each request of a round in order, rounds spaced per request', async () => {
    const { base, requests } = await scriptedServer([]);
    const { listener } = startPoller(base, {
      requests: [
        { url: `${base}/a`, parse },
        { url: `${base}/b`, parse },
      ],
      headers: { 'x-api-key': 'k-123' },
      pollMs: 10,
      minPollMs: 30,
    });
    await waitFor(() => requests.length >= 4, 2_000, 'two rounds');
    expect(requests.slice(0, 4).map((r) => r.url)).toEqual(['/a', '/b', '/a', '/b']);
    expect(requests.every((r) => r.headers['x-api-key'] === 'k-123')).toBe(true);
    expect(listener.states[0]?.detail).toBe(`polling ${new URL(base).host} every 60 ms`);
  });

  it('refuses to start without a request or with a URL that is not http(s)', () => {
    const listener = new RecordingListener();
    const base = {
      source: 'panel',
      pollMs: 1,
      minPollMs: 1,
      timeoutMs: 1,
      backoffMaxMs: 1,
      listener,
      logger: silentLogger,
    };
    expect(() => new HttpPoller({ ...base, requests: [] })).toThrow(/nothing to poll/);
    expect(() => new HttpPoller({ ...base, requests: [{ url: 'ftp://x', parse }] })).toThrow(/http\(s\)/);
  });
});
