import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { Value } from 'typebox/value';
import { describe, expect, it, onTestFinished } from 'vitest';
import { RatesResponseSchema } from '../../../src/domain/rates.ts';
import {
  buildTestApp,
  publicUrl,
  sampleSnapshot,
  type TestApp,
  type TestAppOptions,
} from '../../support/test-app.ts';
import { describeAuthenticatedRoute } from '../auth/authenticated-route-suite.ts';

// Every variant of the route runs the shared suite of keyed routes.
describeAuthenticatedRoute({ method: 'GET', url: '/v1/rates', okStatus: 200 });
describeAuthenticatedRoute({ method: 'GET', url: '/v1/rates?symbol=btc', okStatus: 200 });
describeAuthenticatedRoute({ method: 'GET', url: '/v1/rates?symbols=usdt,btc', okStatus: 200 });
describeAuthenticatedRoute({ method: 'HEAD', url: '/v1/rates', okStatus: 200 });

/** The app of the running test, closed when it ends. */
let t: TestApp;
async function openApp(options?: TestAppOptions): Promise<TestApp> {
  const opened = await buildTestApp(options);
  onTestFinished(() => opened.app.close());
  return opened;
}

const get = (url: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url, headers: { 'x-api-key': t.key, ...headers } });

describe('GET /v1/rates', () => {
  it('answers the rates response (content/docs.md "Response") from the last snapshot, field for field', async () => {
    t = await openApp();
    const response = await get('/v1/rates');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json');
    const body = response.json();
    expect(Value.Check(RatesResponseSchema, body)).toBe(true);
    expect(Object.keys(body)).toEqual([
      'source',
      'side',
      'usdt_irt',
      'updated_at',
      'disclaimer',
      'count',
      'rates',
    ]);
    expect(body).toMatchObject({
      source: 'binance+nobitex',
      side: 'sell',
      usdt_irt: 92_150,
      updated_at: '2025-01-01T12:00:00.000Z',
      disclaimer: t.config.NERKH_DISCLAIMER,
      count: 4,
    });
    expect(body.rates).toHaveLength(body.count);
    for (const row of body.rates) {
      expect(Object.keys(row)).toEqual([
        'symbol',
        'name_fa',
        'sell_usdt',
        'sell_irt',
        'change_24h',
        'as_of',
        'url',
        'source',
        'tether_source',
      ]);
      if (row.sell_irt !== null) expect(Number.isInteger(row.sell_irt)).toBe(true);
    }
    // Tether is a row of its own, priced at exactly usdt_irt toman.
    expect(body.rates.find((r: { symbol: string }) => r.symbol === 'USDT')).toMatchObject({
      sell_usdt: 1,
      sell_irt: 92_150,
    });
    expect(body.rates.find((r: { symbol: string }) => r.symbol === 'BTC')).toEqual(sampleSnapshot().rates[0]);
  });

  it('names on each row the source that priced it and the source of the tether rate it was converted at, as /v1/openapi.json describes them', async () => {
    const rates = sampleSnapshot().rates.map((row) =>
      row.symbol === 'ETH' ? { ...row, source: 'wallex', tether_source: null } : row,
    );
    t = await openApp({ snapshot: { ...sampleSnapshot(), rates } });
    const body = (await get('/v1/rates')).json();
    expect(
      body.rates.map((row: { symbol: string; source: string; tether_source: string | null }) => [
        row.symbol,
        row.source,
        row.tether_source,
      ]),
    ).toEqual([
      ['BTC', 'binance', 'nobitex'],
      ['ETH', 'wallex', null],
      ['SHIB', 'binance', 'nobitex'],
      ['USDT', 'nobitex', null],
    ]);
    // The response's own label stays as it was: the sources of the whole snapshot.
    expect(body.source).toBe('binance+nobitex');
    expect((await get('/v1/rates?symbol=eth')).json().rates[0]).toMatchObject({
      source: 'wallex',
      tether_source: null,
    });

    const openapi = (await t.app.inject({ url: '/v1/openapi.json' })).json();
    const rowSchema =
      openapi.paths['/rates'].get.responses['200'].content['application/json'].schema.properties.rates.items;
    for (const row of body.rates) {
      expect(Object.keys(row)).toEqual(Object.keys(rowSchema.properties));
      expect(rowSchema.required).toEqual(expect.arrayContaining(Object.keys(row)));
    }
    expect(rowSchema.properties.source).toMatchObject({ type: 'string' });
    expect(rowSchema.properties.source.description).toMatch(/priced the row/);
    expect(rowSchema.properties.tether_source.anyOf).toEqual([{ type: 'string' }, { type: 'null' }]);
    expect(rowSchema.properties.tether_source.description).toMatch(/usdt_irt/);
  });

  it('names the sources that priced the snapshot, each snapshot its own', async () => {
    t = await openApp({ snapshot: { ...sampleSnapshot(), source: 'nobitex+wallex' } });
    expect((await get('/v1/rates')).json().source).toBe('nobitex+wallex');
    expect((await get('/v1/rates?symbol=btc')).json().source).toBe('nobitex+wallex');
  });

  it('uses the configured source label and disclaimer', async () => {
    t = await openApp({
      env: { NERKH_SOURCE_LABEL: 'acme-exchange', NERKH_DISCLAIMER: 'Informational only.' },
    });
    expect((await get('/v1/rates')).json()).toMatchObject({
      source: 'acme-exchange',
      disclaimer: 'Informational only.',
    });
  });

  it.each(['BTC', 'btc', 'bTc'])('filters to one symbol, case-insensitively (?symbol=%s)', async (symbol) => {
    t = await openApp();
    const body = (await get(`/v1/rates?symbol=${symbol}`)).json();
    expect(body.count).toBe(1);
    expect(body.rates).toHaveLength(1);
    expect(body.rates[0].symbol).toBe('BTC');
    expect(body.updated_at).toBe('2025-01-01T12:00:00.000Z');
    expect(Value.Check(RatesResponseSchema, body)).toBe(true);
  });

  it('keeps a null toman rate null (a coin below half a toman)', async () => {
    t = await openApp({
      snapshot: {
        ...sampleSnapshot(),
        rates: sampleSnapshot().rates.map((r) =>
          r.symbol === 'SHIB' ? { ...r, sell_irt: null, tether_source: null } : r,
        ),
      },
    });
    expect((await get('/v1/rates?symbol=shib')).json().rates[0].sell_irt).toBeNull();
  });

  it('sets ETag, Last-Modified = updated_at and Cache-Control up to the next refresh', async () => {
    t = await openApp();
    const response = await get('/v1/rates');
    expect(response.headers.etag).toMatch(/^"[^"]+"$/);
    expect(response.headers['last-modified']).toBe('Wed, 01 Jan 2025 12:00:00 GMT');
    // The fixture clock is 60 s after the commit; the next one is due 600 s after it.
    expect(response.headers['cache-control']).toBe('private, max-age=540');
    expect(response.headers.vary).toBe('Accept-Encoding');
    t.clock.advance(700_000);
    expect((await get('/v1/rates')).headers['cache-control']).toBe('private, max-age=0');
  });

  it('answers 304 to If-None-Match with the current ETag, with its headers but no body', async () => {
    t = await openApp();
    const first = await get('/v1/rates');
    const etag = first.headers.etag as string;
    const again = await get('/v1/rates', { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    // RFC 9110 §8.6: a Content-Length on a 304 must be that of the 200; none is simplest. A wrong
    // one (the serialized `null`, 4) leaves HTTP/1.1 clients waiting for bytes that never come.
    expect(again.headers['content-length']).toBeUndefined();
    expect(again.headers['content-type']).toBeUndefined();
    // What RFC 9110 §15.4.5 requires (ETag, Cache-Control, Vary; Date is Node's), the request's own
    // id and rate-limit state, and nothing the client's stored 200 already says (RFC 9111 §4.3.4).
    expect(Object.keys(again.headers).sort()).toEqual([
      'cache-control',
      'connection',
      'date',
      'etag',
      'ratelimit',
      'ratelimit-policy',
      'vary',
      'x-request-id',
    ]);
    expect(again.headers.etag).toBe(etag);
    expect(again.headers['cache-control']).toBe(first.headers['cache-control']);
    expect(again.headers.vary).toBe('Accept-Encoding');
    expect((await get('/v1/rates', { 'if-none-match': `W/${etag}, "other"` })).statusCode).toBe(304);
    expect((await get('/v1/rates', { 'if-none-match': '"stale"' })).statusCode).toBe(200);
    // Each symbol variant has its own tag.
    const btc = await get('/v1/rates?symbol=BTC');
    expect(btc.headers.etag).not.toBe(etag);
    expect(
      (await get('/v1/rates?symbol=btc', { 'if-none-match': btc.headers.etag as string })).statusCode,
    ).toBe(304);
    expect(
      (await get('/v1/rates?symbol=ETH', { 'if-none-match': btc.headers.etag as string })).statusCode,
    ).toBe(200);
  });

  it('answers 304 to If-Modified-Since at or after updated_at', async () => {
    t = await openApp();
    expect(
      (await get('/v1/rates', { 'if-modified-since': 'Wed, 01 Jan 2025 12:00:00 GMT' })).statusCode,
    ).toBe(304);
    expect(
      (await get('/v1/rates', { 'if-modified-since': 'Wed, 01 Jan 2025 11:59:59 GMT' })).statusCode,
    ).toBe(200);
  });

  it('serves a new snapshot with a new ETag once it is committed', async () => {
    t = await openApp({ deps: { pollMs: 20 } });
    const before = await get('/v1/rates');
    await t.snapshots.commitSnapshot(sampleSnapshot('2025-01-01T12:10:00.000Z'));
    const deadline = Date.now() + 2000;
    let after = await get('/v1/rates');
    while (after.json().updated_at !== '2025-01-01T12:10:00.000Z' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      after = await get('/v1/rates');
    }
    expect(after.json().updated_at).toBe('2025-01-01T12:10:00.000Z');
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect((await get('/v1/rates', { 'if-none-match': before.headers.etag as string })).statusCode).toBe(200);
  });

  it.each([
    ['gzip', 'gzip', gunzipSync],
    ['br', 'br', brotliDecompressSync],
    ['gzip;q=0.5, br;q=0.9', 'br', brotliDecompressSync],
    ['br;q=0, gzip', 'gzip', gunzipSync],
    ['*', 'br', brotliDecompressSync],
  ])('with Accept-Encoding "%s" sends %s that decodes to the same JSON', async (accept, coding, decode) => {
    t = await openApp();
    const plain = await get('/v1/rates?symbol=eth');
    const encoded = await get('/v1/rates?symbol=eth', { 'accept-encoding': accept });
    expect(encoded.headers['content-encoding']).toBe(coding);
    expect(encoded.headers.vary).toBe('Accept-Encoding');
    expect(encoded.headers.etag).not.toBe(plain.headers.etag);
    expect(JSON.parse(decode(encoded.rawPayload).toString('utf8'))).toEqual(plain.json());
  });

  it('sends identity when no coding is acceptable or none is asked for', async () => {
    t = await openApp();
    for (const accept of ['identity', 'deflate', 'gzip;q=0, br;q=0']) {
      const response = await get('/v1/rates', { 'accept-encoding': accept });
      expect(response.headers['content-encoding']).toBeUndefined();
      expect(response.json().count).toBe(4);
    }
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    t = await openApp();
    const response = await t.app.inject({
      method: 'HEAD',
      url: '/v1/rates',
      headers: { 'x-api-key': t.key },
    });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('');
    expect(response.headers.etag).toBeDefined();
  });

  it('ignores unrelated query parameters', async () => {
    t = await openApp();
    expect((await get('/v1/rates?foo=bar')).json().count).toBe(4);
  });
});

describe('GET /v1/rates errors', () => {
  it.each([
    '?symbol=',
    '?symbol=BTC-USD',
    '?symbol=%D8%A8%DB%8C%D8%AA',
    `?symbol=${'A'.repeat(21)}`,
    '?symbol=BTC&symbol=ETH',
    '?symbol=BTC%00',
    '?symbol=%20BTC',
  ])('answers 400 invalid-symbol to %s', async (query) => {
    t = await openApp();
    const response = await get(`/v1/rates${query}`);
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({
      type: `${publicUrl}/docs/errors#invalid-symbol`,
      code: 'invalid-symbol',
      status: 400,
      instance: '/v1/rates',
    });
  });

  it('answers 404 unknown-symbol to a well-formed symbol that is not listed', async () => {
    t = await openApp();
    const response = await get('/v1/rates?symbol=doge');
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchInlineSnapshot(`
      {
        "code": "unknown-symbol",
        "detail": "DOGE is not listed; GET /v1/rates lists every currency.",
        "instance": "/v1/rates",
        "status": 404,
        "title": "Unknown symbol",
        "type": "https://rates.example.test/docs/errors#unknown-symbol",
        "unknown-symbols": [
          "DOGE",
        ],
      }
    `);
  });

  it('checks the key before validating: a bad key with a bad symbol is 403, no key is 401', async () => {
    t = await openApp();
    expect((await get('/v1/rates?symbol=!!', { 'x-api-key': 'nerkh_bad' })).statusCode).toBe(403);
    expect((await t.app.inject({ url: '/v1/rates?symbol=!!' })).statusCode).toBe(401);
  });

  it('counts invalid-symbol requests against the quota (the rate limit runs before validation)', async () => {
    t = await openApp();
    const small = await t.issue(1);
    expect((await get('/v1/rates?symbol=!!', { 'x-api-key': small.key })).statusCode).toBe(400);
    expect((await get('/v1/rates?symbol=!!', { 'x-api-key': small.key })).statusCode).toBe(429);
  });

  it('answers 503 service-unavailable with Retry-After before the first snapshot, after the key check', async () => {
    t = await openApp({ snapshot: null });
    expect((await t.app.inject({ url: '/v1/rates' })).statusCode).toBe(401);
    const response = await get('/v1/rates');
    expect(response.statusCode).toBe(503);
    expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(response.json()).toMatchObject({ code: 'service-unavailable', status: 503 });
  });

  it('keeps serving the last snapshot when the store fails, and says nothing of the fault', async () => {
    t = await openApp({ deps: { pollMs: 10 } });
    const failing = t.snapshots as unknown as { latestSnapshotId: () => Promise<number> };
    failing.latestSnapshotId = async () => {
      throw new Error('disk I/O error at /secret/path');
    };
    await new Promise((resolve) => setTimeout(resolve, 50));
    const response = await get('/v1/rates');
    expect(response.statusCode).toBe(200);
    expect(response.json().count).toBe(4);
  });
});

/** `r` of a RateLimit field: the requests the key has left. */
const remaining = (field: unknown) => Number(/;r=(\d+)/.exec(String(field))?.[1]);

describe('GET /v1/rates?symbols=', () => {
  it('answers the named currencies, sorted by symbol as in the full list, whatever order they were named in', async () => {
    t = await openApp();
    const response = await get('/v1/rates?symbols=USDT,btc,Eth');
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(Value.Check(RatesResponseSchema, body)).toBe(true);
    expect(body.count).toBe(3);
    expect(body.rates.map((row: { symbol: string }) => row.symbol)).toEqual(['BTC', 'ETH', 'USDT']);
    const all = (await get('/v1/rates')).json();
    expect(body.rates).toEqual(all.rates.filter((row: { symbol: string }) => row.symbol !== 'SHIB'));
    expect(body).toMatchObject({ updated_at: all.updated_at, usdt_irt: all.usdt_irt, source: all.source });
  });

  it('folds case and duplicates: btc,BTC,Btc is BTC alone, the same answer as symbol=BTC', async () => {
    t = await openApp();
    const folded = await get('/v1/rates?symbols=btc,BTC,Btc');
    const single = await get('/v1/rates?symbol=BTC');
    expect(folded.statusCode).toBe(200);
    expect(folded.json().count).toBe(1);
    expect(folded.body).toBe(single.body);
    expect(folded.headers.etag).toBe(single.headers.etag);
  });

  it('counts the request once against the key, however many symbols it names', async () => {
    t = await openApp();
    const first = await get('/v1/rates?symbols=BTC,ETH,SHIB,USDT');
    const second = await get('/v1/rates?symbols=BTC,ETH');
    expect(first.statusCode).toBe(200);
    expect(remaining(first.headers.ratelimit)).toBe(59);
    expect(remaining(second.headers.ratelimit)).toBe(58);
    expect(second.headers['ratelimit-policy']).toBe('"default";q=60;w=60');
  });

  it('has an ETag of its own per set, the same for the same set in any order or case, and answers 304', async () => {
    t = await openApp();
    const first = await get('/v1/rates?symbols=BTC,ETH', { 'accept-encoding': 'br' });
    expect(first.headers['content-encoding']).toBe('br');
    const etag = first.headers.etag as string;
    expect(etag).not.toBe((await get('/v1/rates', { 'accept-encoding': 'br' })).headers.etag);
    const again = await get('/v1/rates?symbols=eth,btc', { 'accept-encoding': 'br', 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers['cache-control']).toBe('private, max-age=540');
    const other = await get('/v1/rates?symbols=BTC,USDT', { 'accept-encoding': 'br', 'if-none-match': etag });
    expect(other.statusCode).toBe(200);
    // Each coding of the set decodes to the same list.
    const identity = (await get('/v1/rates?symbols=ETH,BTC')).body;
    expect(brotliDecompressSync(first.rawPayload).toString()).toBe(identity);
    const gzipped = await get('/v1/rates?symbols=ETH,BTC', { 'accept-encoding': 'gzip' });
    expect(gunzipSync(gzipped.rawPayload).toString()).toBe(identity);
  });

  it('serves each new snapshot with a new body and ETag', async () => {
    t = await openApp({ deps: { pollMs: 20 } });
    const before = await get('/v1/rates?symbols=BTC,ETH');
    await t.snapshots.commitSnapshot(sampleSnapshot('2025-01-01T12:10:00.000Z'));
    const deadline = Date.now() + 2000;
    let after = await get('/v1/rates?symbols=BTC,ETH');
    while (after.json().updated_at !== '2025-01-01T12:10:00.000Z' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      after = await get('/v1/rates?symbols=BTC,ETH');
    }
    expect(after.json().updated_at).toBe('2025-01-01T12:10:00.000Z');
    expect(after.headers.etag).not.toBe(before.headers.etag);
  });

  it('takes 20 distinct symbols, and 21 items when two are the same', async () => {
    t = await openApp();
    const twenty = Array.from({ length: 19 }, (_, i) => `X${i}`).concat('BTC');
    // Well formed and within the maximum: judged on being listed.
    expect((await get(`/v1/rates?symbols=${twenty.join(',')}`)).statusCode).toBe(404);
    const withDuplicate = ['BTC', 'ETH', ...Array.from({ length: 19 }, () => 'eth')];
    expect((await get(`/v1/rates?symbols=${withDuplicate.join(',')}`)).json().count).toBe(2);
  });
});

describe('GET /v1/rates?symbols= errors', () => {
  it.each([
    ['?symbols=', 'symbols is empty; give 1 to 20 comma-separated symbols (e.g. BTC,ETH).'],
    ['?symbols=BTC,,ETH', 'symbols item 2 is empty; separate symbols with single commas (e.g. BTC,ETH).'],
    ['?symbols=BTC,', 'symbols item 2 is empty; separate symbols with single commas (e.g. BTC,ETH).'],
    [',BTC', 'symbols item 1 is empty; separate symbols with single commas (e.g. BTC,ETH).'],
    ['?symbols=BTC,ETH-USD', 'symbols item 2 ("ETH-USD") is not 1 to 20 ASCII letters or digits.'],
    ['?symbols=BTC%20,ETH', 'symbols item 1 ("BTC ") is not 1 to 20 ASCII letters or digits.'],
    [
      `?symbols=BTC,${'A'.repeat(30)}`,
      `symbols item 2 ("${'A'.repeat(24)}…") is not 1 to 20 ASCII letters or digits.`,
    ],
    [
      '?symbols=BTC&symbols=ETH',
      'symbols must be given once, as one comma-separated list (e.g. BTC,ETH,SOL).',
    ],
    ['?symbol=BTC&symbols=ETH', 'Give symbol or symbols, not both: symbols=BTC,ETH asks for several.'],
    ['?symbol=BTC&symbols=', 'Give symbol or symbols, not both: symbols=BTC,ETH asks for several.'],
    [
      `?symbols=${Array.from({ length: 21 }, (_, i) => `C${i}`).join(',')}`,
      'symbols names 21 distinct currencies; at most 20 per request (or omit it for all).',
    ],
  ])('answers 400 invalid-symbol to %s, naming the part at fault', async (query, detail) => {
    t = await openApp();
    const url = query.startsWith('?') ? `/v1/rates${query}` : `/v1/rates?symbols=${query}`;
    const response = await get(url);
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({
      type: `${publicUrl}/docs/errors#invalid-symbol`,
      code: 'invalid-symbol',
      status: 400,
      detail,
    });
    // Validation comes after the limit: the refused request was counted.
    expect(remaining(response.headers.ratelimit)).toBe(59);
  });

  it('answers 404 unknown-symbol naming every symbol that is not listed, upper case, in the order named', async () => {
    t = await openApp();
    const response = await get('/v1/rates?symbols=btc,doge,XYZ,doge');
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({
      code: 'unknown-symbol',
      detail: 'DOGE, XYZ are not listed; GET /v1/rates lists every currency.',
      'unknown-symbols': ['DOGE', 'XYZ'],
    });
    expect(remaining(response.headers.ratelimit)).toBe(59);
  });

  it('checks the key and the limit before the symbols', async () => {
    t = await openApp();
    expect((await get('/v1/rates?symbols=,,', { 'x-api-key': 'nerkh_bad' })).statusCode).toBe(403);
    expect((await t.app.inject({ url: '/v1/rates?symbols=,,' })).statusCode).toBe(401);
    const small = await t.issue(1);
    expect((await get('/v1/rates?symbols=BTC,ETH', { 'x-api-key': small.key })).statusCode).toBe(200);
    const refused = await get('/v1/rates?symbols=,,', { 'x-api-key': small.key });
    expect(refused.statusCode).toBe(429);
    expect(refused.json().code).toBe('rate-limited');
  });
});
