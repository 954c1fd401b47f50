import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen } from '../../src/http/server.ts';
import { buildTestApp, healthyCollector, sampleSnapshot, type TestApp } from './fixtures.ts';
import { parseRawResponse, rawExchange } from './raw-http.ts';

let t: TestApp;
let port: number;
beforeAll(async () => {
  // A fresh snapshot on the real clock, so the final health check can expect a pass.
  t = await buildTestApp({
    deps: { clock: Date.now },
    snapshot: sampleSnapshot(new Date().toISOString()),
    collector: healthyCollector(Date.now()),
  });
  port = Number(new URL(await listen(t.app, '127.0.0.1', 0)).port);
});
afterAll(async () => {
  await t.app.close();
});

// Weighted towards requests that reach the routes, so auth, limits and validation get fuzzed too.
const method = fc.oneof(
  { arbitrary: fc.constant('GET'), weight: 4 },
  fc.constantFrom(
    'HEAD',
    'POST',
    'PUT',
    'DELETE',
    'PATCH',
    'OPTIONS',
    'TRACE',
    'PROPFIND',
    'PURGE',
    'M-SEARCH',
  ),
  fc.stringMatching(/^[A-Z]{1,10}$/),
);
const segment = fc.oneof(
  fc.constantFrom(
    'v1',
    'rates',
    'health',
    'openapi.json',
    '..',
    '.',
    '',
    '%2e%2e',
    '%ZZ',
    '%',
    '%00',
    'v1%2Frates',
  ),
  fc.stringMatching(/^[A-Za-z0-9._~-]{0,12}$/),
  fc.string({ unit: 'binary', maxLength: 6 }).map((s) => encodeURIComponent(s)),
);
const path = fc.oneof(
  { arbitrary: fc.constantFrom('/v1/rates', '/v1/health', '/health', '/v1/rates/'), weight: 3 },
  fc.array(segment, { maxLength: 5 }).map((segments) => `/${segments.join('/')}`),
);
const queryValue = fc.oneof(
  fc.constantFrom('BTC', 'btc', '', '%ZZ', '%', 'A'.repeat(25), 'nerkh_x', '%F0%9F%92%A9', 'a&b'),
  fc.stringMatching(/^[A-Za-z0-9%+=&-]{0,20}$/),
);
const query = fc.option(
  fc
    .array(fc.tuple(fc.constantFrom('symbol', 'key', 'api_key', 'x', 'symbol[]', '__proto__'), queryValue), {
      maxLength: 4,
    })
    .map((pairs) => `?${pairs.map(([name, value]) => `${name}=${value}`).join('&')}`),
  { nil: '' },
);
/** Header values, including bytes Node's parser refuses and sizes beyond its 16 KiB limit. */
const headerValue = fc.oneof(
  { arbitrary: fc.stringMatching(/^[ -~]{0,40}$/), weight: 3 },
  fc.stringMatching(/^[ -~]{0,40}$/),
  fc.constantFrom(
    '\u0000',
    '\u007f',
    'é',
    'W/"x", *',
    'gzip;q=abc, br;q=2',
    'nerkh_AAAAAAAAAAAAAAAAAAAAAA_AAAAAA',
  ),
  fc.integer({ min: 1000, max: 20_000 }).map((size) => 'h'.repeat(size)),
);
const header = fc.tuple(
  fc.oneof(
    fc.constantFrom(
      'X-API-Key',
      'Accept-Encoding',
      'If-None-Match',
      'If-Modified-Since',
      'Accept',
      'Content-Type',
      'Expect',
    ),
    fc.stringMatching(/^[A-Za-z-]{1,12}$/),
  ),
  headerValue,
);

describe('fuzzing methods, paths, queries and headers over a socket', () => {
  it('never answers 5xx, answers every error as a problem document, and stays up', async () => {
    await fc.assert(
      fc.asyncProperty(
        method,
        path,
        query,
        fc.array(header, { maxLength: 5 }),
        fc.boolean(),
        async (verb, target, search, headers, withValidKey) => {
          const lines = [`${verb} ${target}${search} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close'];
          if (withValidKey) lines.push(`X-API-Key: ${t.key}`);
          for (const [name, value] of headers) lines.push(`${name}: ${value}`);
          const raw = await rawExchange(port, Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'));
          expect(raw.length).toBeGreaterThan(0);
          const response = parseRawResponse(raw);
          expect(response.status).toBeGreaterThanOrEqual(200);
          expect(response.status).toBeLessThan(500);
          if (response.status >= 400) {
            expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
            if (verb !== 'HEAD') {
              const body = JSON.parse(response.body);
              expect(body.status).toBe(response.status);
              expect(body.type).toMatch(/\/docs\/errors#[a-z-]+$/);
              expect(typeof body.code).toBe('string');
            }
          }
        },
      ),
      { numRuns: 300 },
    );
    const health = await fetch(`http://127.0.0.1:${port}/v1/health`);
    expect(health.status).toBe(200);
  });
});
