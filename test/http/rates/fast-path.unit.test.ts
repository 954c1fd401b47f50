import { request as httpRequest, ServerResponse } from 'node:http';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import type { ApiDeps } from '../../../src/api-wiring.ts';
import { ResponseHeaders } from '../../../src/http/edge/response-headers.ts';
import { listen } from '../../../src/http/server.ts';
import { memoryLimiters } from '../../../src/limiter/open-limiter.ts';
import type { RateLimiter } from '../../../src/limiter/types.ts';
import { HttpMetrics } from '../../../src/metrics/http-metrics.ts';
import { rawExchange } from '../../support/raw-http.ts';
import { buildTestApp, LogCapture, type TestApp, testConfig } from '../../support/test-app.ts';

interface Answer {
  status: number;
  /** Header fields in the order sent, names lower-cased; Date and a generated X-Request-Id left out. */
  fields: string[];
  body: string;
}

function get(
  port: number,
  target: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest({ host: '127.0.0.1', port, path: target, method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const fields: string[] = [];
        const raw = response.rawHeaders;
        for (let index = 0; index < raw.length; index += 2) {
          const name = (raw[index] as string).toLowerCase();
          const value = raw[index + 1] as string;
          if (name === 'date') continue;
          if (name === 'x-request-id' && headers['x-request-id'] === undefined) {
            expect(value).toMatch(/^[0-9a-f-]{36}$/);
            continue;
          }
          fields.push(`${name}: ${value}`);
        }
        resolve({ status: response.statusCode ?? 0, fields, body: Buffer.concat(chunks).toString('latin1') });
      });
    });
    sent.on('error', reject);
    sent.end();
  });
}

interface Served {
  t: TestApp;
  registry: Registry;
  port: number;
  logs: LogCapture;
  /** A key limited to 3 requests a window. */
  limited: string;
}

async function serve(deps: Partial<ApiDeps>, env: Record<string, string> = {}): Promise<Served> {
  const logs = new LogCapture();
  const registry = new Registry();
  // The limited key is issued before the app starts: one issued after would change the keys'
  // version, and the app's poll of it, a second later, would drop the key caches mid-test.
  const t = await buildTestApp({
    logs,
    env,
    deps: { metrics: new HttpMetrics(registry), ...deps },
    secondKey: { rateLimit: 3 },
  });
  onTestFinished(() => t.app.close());
  const port = Number(new URL(await listen(t.app, '127.0.0.1', 0)).port);
  return { t, registry, port, logs, limited: t.secondKey as string };
}

/** The counts a scrape reports (requests by route and status, decisions, key checks), not durations. */
async function counts(registry: Registry): Promise<string[]> {
  return (await registry.metrics())
    .split('\n')
    .filter(
      (line) => /^nerkh_\w+(_count|_total)(\{|\s)/.test(line) || line.startsWith('nerkh_api_key_cache'),
    );
}

/** The access-log lines of `logs`, without what differs between two apps by nature. */
function accessLines(logs: LogCapture): unknown[] {
  return logs.lines
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.msg === 'request')
    .map(({ time: _time, pid: _pid, hostname: _hostname, req_id, duration_ms, key_id, ...line }) => {
      expect(typeof duration_ms).toBe('number');
      return { ...line, req_id: typeof req_id, key_id: typeof key_id };
    });
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the rates fast path answers exactly as the route does', () => {
  it('sends the same status, header fields, body and access line for every kind of request', async () => {
    const fast = await serve({});
    const route = await serve({ ratesFastPath: false });
    // Asked of both, so both keys have made the same requests before the comparison.
    const etagOf = async (s: Served) =>
      (await get(s.port, '/v1/rates', { 'x-api-key': s.t.key })).fields.find((field) =>
        field.startsWith('etag: '),
      );
    const etag = await etagOf(fast);
    expect(await etagOf(route)).toBe(etag);
    const requests: Array<[string, (s: Served) => Record<string, string>, string?]> = [
      ['/v1/rates', (s) => ({ 'x-api-key': s.t.key })],
      ['/v1/rates', (s) => ({ 'x-api-key': s.t.key, 'accept-encoding': 'gzip' })],
      ['/v1/rates', (s) => ({ 'x-api-key': s.t.key, 'accept-encoding': 'gzip, br' })],
      ['/v1/rates?symbol=btc', (s) => ({ 'x-api-key': s.t.key })],
      ['/v1/rates?symbol=ETH', (s) => ({ 'x-api-key': s.t.key, 'x-request-id': 'client-chosen.1' })],
      ['/v1/rates', (s) => ({ 'x-api-key': s.t.key, 'if-none-match': etag?.slice(6) ?? '' })],
      ['/v1/rates', (s) => ({ 'x-api-key': s.t.key, 'if-modified-since': 'Fri, 01 Jan 2100 00:00:00 GMT' })],
      ['/v1/rates', (s) => ({ 'x-api-key': s.t.key, 'if-modified-since': 'Fri, 01 Jan 1999 00:00:00 GMT' })],
      ['/v1/rates?symbol=NOPE', (s) => ({ 'x-api-key': s.t.key })],
      ['/v1/rates?symbol=b-c', (s) => ({ 'x-api-key': s.t.key })],
      ['/v1/rates?symbol=BTC&symbol=ETH', (s) => ({ 'x-api-key': s.t.key })],
      ['/v1/rates?symbol=BTC&extra=1', (s) => ({ 'x-api-key': s.t.key })],
      ['/v1/rates?key=secret', () => ({})],
      ['/v1/rates', () => ({})],
      ['/v1/rates', () => ({ 'x-api-key': 'not-a-key' })],
      ['/v1/rates', (s) => ({ 'x-api-key': s.t.key }), 'HEAD'],
      ...Array.from({ length: 4 }, (): [string, (s: Served) => Record<string, string>] => [
        '/v1/rates?symbol=BTC',
        (s) => ({ 'x-api-key': s.limited }),
      ]),
    ];
    for (const [target, headers, method] of requests) {
      const viaFastPath = await get(fast.port, target, headers(fast), method);
      const viaRoute = await get(route.port, target, headers(route), method);
      expect(viaFastPath, `${method ?? 'GET'} ${target}`).toEqual(viaRoute);
    }
    expect(accessLines(fast.logs)).toEqual(accessLines(route.logs));
    const scraped = await counts(fast.registry);
    expect(scraped.some((line) => line.startsWith('nerkh_api_key_cache_lookups_total{result="hit"}'))).toBe(
      true,
    );
    expect(scraped).toEqual(await counts(route.registry));
  });

  it('answers the common request itself and hands every other one to the route', async () => {
    const fast = await serve({});
    const throughRoute = vi.spyOn(ResponseHeaders.prototype, 'sendPrepared');
    const key = { 'x-api-key': fast.t.key };
    // The key's first request goes through the route, which authenticates it against the store.
    expect((await get(fast.port, '/v1/rates', key)).status).toBe(200);
    expect(throughRoute).toHaveBeenCalledTimes(1);
    expect((await get(fast.port, '/v1/rates', key)).status).toBe(200);
    expect((await get(fast.port, '/v1/rates?symbol=btc', key)).status).toBe(200);
    expect((await get(fast.port, '/v1/rates', { ...key, 'accept-encoding': 'br' })).status).toBe(200);
    expect(throughRoute).toHaveBeenCalledTimes(1);
    // A target the schema must judge, or a HEAD, is the route's.
    expect((await get(fast.port, '/v1/rates?symbol=BTC&extra=1', key)).status).toBe(200);
    expect((await get(fast.port, '/v1/rates', key, 'HEAD')).status).toBe(200);
    expect(throughRoute).toHaveBeenCalledTimes(3);
  });

  it("counts each key's admitted and refused requests once, whichever path answers, written at close", async () => {
    const memory = memoryLimiters(testConfig());
    onTestFinished(() => memory.close());
    const later: RateLimiter = {
      take: async (key, limit, nowMs) => memory.requests.take(key, limit, nowMs),
      peek: (key, limit, nowMs) => memory.requests.peek(key, limit, nowMs),
      close: async () => {},
    };
    for (const deps of [{}, { limiters: { ...memory, requests: later } }]) {
      const fast = await serve(deps);
      for (let request = 0; request < 5; request++)
        await get(fast.port, '/v1/rates', { 'x-api-key': fast.limited });
      await get(fast.port, '/v1/rates', { 'x-api-key': fast.t.key });
      // A mistyped key: its last character changed (a key ending in "x" kept its own, and was counted).
      const mistyped = `${fast.t.key.slice(0, -1)}${fast.t.key.endsWith('x') ? 'y' : 'x'}`;
      await get(fast.port, '/v1/rates', { 'x-api-key': mistyped });
      // Nothing is written per request: the counts reach the store with the last use, here at close.
      expect(await fast.t.keys.apiKeyUsage({ since: '2000-01-01' })).toEqual([]);
      await fast.t.app.close();
      const limitedId = (await fast.t.keys.listApiKeys()).find((key) => key.rate_limit === 3)?.id;
      expect(
        (await fast.t.keys.apiKeyUsage({ since: '2000-01-01' })).sort((a, b) =>
          a.admitted < b.admitted ? -1 : 1,
        ),
      ).toEqual([
        { keyId: fast.t.keyId, day: '2025-01-01', admitted: 1, refused: 0 },
        { keyId: limitedId, day: '2025-01-01', admitted: 3, refused: 2 },
      ]);
    }
  });

  it('waits for a limiter that answers later, and leaves its refusals to the route', async () => {
    const memory = memoryLimiters(testConfig());
    onTestFinished(() => memory.close());
    const decisions: string[] = [];
    const later: RateLimiter = {
      take: async (key, limit, nowMs) => {
        const decision = await memory.requests.take(key, limit, nowMs);
        decisions.push(decision.allowed ? 'admitted' : 'refused');
        return decision;
      },
      peek: (key, limit, nowMs) => memory.requests.peek(key, limit, nowMs),
      close: async () => {},
    };
    const fast = await serve({ limiters: { ...memory, requests: later } });
    const statuses: number[] = [];
    for (let request = 0; request < 5; request++) {
      statuses.push((await get(fast.port, '/v1/rates', { 'x-api-key': fast.limited })).status);
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    // The route's first check, two admissions here, then each refusal asked twice (here, then the
    // route): a refusal counts nothing, so asking twice admits nothing more.
    expect(decisions).toEqual([
      'admitted',
      'admitted',
      'admitted',
      'refused',
      'refused',
      'refused',
      'refused',
    ]);
  });
});

describe('a fault in the fast path', () => {
  it('is logged and leaves the request to the route, whose error handler answers it', async () => {
    const memory = memoryLimiters(testConfig());
    onTestFinished(() => memory.close());
    let failing = false;
    const flaky: RateLimiter = {
      take: (key, limit, nowMs) => {
        if (failing) throw new Error('limiter bug');
        return memory.requests.take(key, limit, nowMs);
      },
      peek: (key, limit, nowMs) => memory.requests.peek(key, limit, nowMs),
      close: async () => {},
    };
    const fast = await serve({ limiters: { ...memory, requests: flaky } });
    const key = { 'x-api-key': fast.t.key };
    expect((await get(fast.port, '/v1/rates', key)).status).toBe(200);
    failing = true;
    const answer = await get(fast.port, '/v1/rates', key);
    expect(answer.status).toBe(500);
    expect(answer.fields).toContain('content-type: application/problem+json; charset=utf-8');
    const faults = fast.logs.lines.filter((line) => line.includes('rates fast path failed'));
    expect(faults).toHaveLength(1);
    // The server goes on answering.
    failing = false;
    expect((await get(fast.port, '/v1/rates', key)).status).toBe(200);
  });
});

/**
 * What the server sends back on a new connection for `raw` (one or several requests, pipelined),
 * with the values of Date and of a generated X-Request-Id replaced: they differ by nature.
 */
async function exchange(port: number, raw: string): Promise<string> {
  return (await rawExchange(port, raw))
    .replace(/\r\nDate: [^\r]*/g, '\r\nDate: (now)')
    .replace(/\r\nx-request-id: [0-9a-f-]{36}/g, '\r\nx-request-id: (generated)');
}

describe('the heads the fast path writes itself', () => {
  it('are byte for byte what node:http writes, whatever the connection asks for', async () => {
    const fast = await serve({});
    const route = await serve({ ratesFastPath: false });
    const writeHead = vi.spyOn(ServerResponse.prototype, 'writeHead');
    const get = (s: Served, target: string, more = '', version = '1.1') =>
      `GET ${target} HTTP/${version}\r\nHost: 127.0.0.1\r\nX-API-Key: ${s.t.key}\r\n${more}\r\n`;
    const etag = (await exchange(fast.port, get(fast, '/v1/rates'))).match(/\r\netag: ("[^"]+")/)?.[1];
    await exchange(route.port, get(route, '/v1/rates'));
    const cases: Array<[string, (s: Served) => string, number]> = [
      ['keep-alive', (s) => get(s, '/v1/rates'), 1],
      [
        'two pipelined, then a 304',
        (s) =>
          get(s, '/v1/rates?symbol=BTC') +
          get(s, '/v1/rates') +
          get(s, '/v1/rates', `If-None-Match: ${etag}\r\n`),
        3,
      ],
      ['Connection: close', (s) => get(s, '/v1/rates', 'Connection: close\r\n'), 1],
      ['HTTP/1.0', (s) => get(s, '/v1/rates', '', '1.0'), 1],
      [
        'HTTP/1.0 keep-alive, then a 304',
        (s) =>
          get(s, '/v1/rates', 'Connection: keep-alive\r\n', '1.0') +
          get(s, '/v1/rates', `Connection: keep-alive\r\nIf-None-Match: ${etag}\r\n`, '1.0'),
        2,
      ],
    ];
    writeHead.mockClear();
    for (const [name, request, responses] of cases) {
      const viaFastPath = await exchange(fast.port, request(fast));
      const viaRoute = await exchange(route.port, request(route));
      expect(viaFastPath, name).toBe(viaRoute);
      expect(viaFastPath.match(/HTTP\/1\.1 (200|304)/g), name).toHaveLength(responses);
    }
    // Every answer of the route's server goes through writeHead (8); of the fast path's, only
    // those node:http must head itself: the connection that closes and the three HTTP/1.0 ones (4).
    // The other 4 (HTTP/1.1, kept alive) had their heads written by the fast path.
    expect(writeHead).toHaveBeenCalledTimes(8 + 4);
  });

  it('carry the current second in Date, a second later too', async () => {
    const fast = await serve({});
    const request = `GET /v1/rates HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${fast.t.key}\r\n\r\n`;
    const dated = async () => {
      const beforeMs = Math.floor(Date.now() / 1000) * 1000;
      const answer = await rawExchange(fast.port, request, 300);
      const afterMs = Date.now();
      const sentMs = Date.parse(answer.match(/\r\nDate: ([^\r]*)/)?.[1] ?? '');
      expect(sentMs).toBeGreaterThanOrEqual(beforeMs);
      expect(sentMs).toBeLessThanOrEqual(afterMs);
      return sentMs;
    };
    // The first request checks the key in the store (the route answers it); the next ones are the fast path's.
    await dated();
    const first = await dated();
    // Into the next second: a Date kept from the first answer would now be a second behind.
    await new Promise((resolve) => setTimeout(resolve, first + 1100 - Date.now()));
    expect(await dated()).toBeGreaterThan(first);
  });

  it('leave a per-socket request limit and its Keep-Alive max and Connection: close to node:http', async () => {
    const env = { NERKH_MAX_REQUESTS_PER_SOCKET: '2' };
    const fast = await serve({}, env);
    const route = await serve({ ratesFastPath: false }, env);
    const twice = (s: Served) =>
      `GET /v1/rates HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${s.t.key}\r\n\r\n`.repeat(2);
    const viaFastPath = await exchange(fast.port, twice(fast));
    expect(viaFastPath).toBe(await exchange(route.port, twice(route)));
    expect(viaFastPath).toContain('Keep-Alive: timeout=72, max=2');
    expect(viaFastPath).toContain('Connection: close');
  });
});
