import fc from 'fast-check';
import { describe, expect, it, onTestFinished } from 'vitest';
import { loggableUrl, queryCarriesKey } from '../../../src/http/edge/access-log.ts';
import { buildTestApp, LogCapture } from '../../support/test-app.ts';

describe('access log', () => {
  it('writes one line per request with id, method, path, status and duration, and never key material', async () => {
    const logs = new LogCapture();
    const t = await buildTestApp({ logs });
    onTestFinished(() => t.app.close());
    const requests = [
      { url: '/v1/rates?symbol=BTC', headers: { 'x-api-key': t.key, 'x-request-id': 'req-1' } },
      { url: `/v1/rates?key=${t.key}`, headers: {} },
      { url: `/v1/rates?symbol=BTC&api_key=${t.key}`, headers: {} },
      { url: `/v1/rates?APIKEY=${encodeURIComponent(t.key)}`, headers: {} },
      { url: `/v1/rates?%61pi_key=${t.key}`, headers: {} },
      { url: '/v1/rates', headers: { 'x-api-key': `${t.key}x` } },
      { url: `/nope?key=${t.key}`, headers: {} },
    ];
    for (const request of requests) await t.app.inject({ method: 'GET', ...request });
    // Closing flushes the batched log lines.
    await t.app.close();

    const secret = t.key.slice(6);
    expect(logs.text).not.toContain(secret);
    const lines = logs.lines.map((line) => JSON.parse(line)).filter((line) => line.msg === 'request');
    expect(lines).toHaveLength(requests.length);
    expect(lines[0]).toMatchObject({
      req_id: 'req-1',
      method: 'GET',
      url: '/v1/rates?symbol=BTC',
      status: 200,
      key_id: t.keyId,
      duration_ms: expect.any(Number),
    });
    expect(lines.slice(1, 5).map((line) => line.url)).toEqual([
      '/v1/rates?[redacted]',
      '/v1/rates?[redacted]',
      '/v1/rates?[redacted]',
      '/v1/rates?[redacted]',
    ]);
    expect(lines[1].status).toBe(401);
    expect(lines[5]).toMatchObject({ status: 403, url: '/v1/rates' });
    expect(lines[6]).toMatchObject({ status: 404, url: '/nope?[redacted]' });
  });

  it('recognises key parameters under any casing or encoding, and nothing else', () => {
    expect(queryCarriesKey('key=x')).toBe(true);
    expect(queryCarriesKey('a=1&Api_Key=x')).toBe(true);
    expect(queryCarriesKey('ap%69key=x')).toBe(true);
    expect(queryCarriesKey('keys=x&monkey=y&symbol=key')).toBe(false);
    expect(loggableUrl('/v1/rates?symbol=BTC')).toBe('/v1/rates?symbol=BTC');
    expect(loggableUrl('/v1/rates')).toBe('/v1/rates');
  });

  it('property: the quick pre-check never clears a query that names a key parameter', () => {
    // Reference: the full parse, for every query, with no shortcut.
    const reference = (query: string) =>
      [...new URLSearchParams(query).keys()].some((name) =>
        ['key', 'api_key', 'apikey'].includes(name.toLowerCase()),
      );
    const piece = fc.constantFrom(
      'k',
      'K',
      'e',
      'E',
      'y',
      'Y',
      'api',
      'API',
      '_',
      '%',
      '6',
      'b',
      '4',
      '5',
      '9',
    );
    const name = fc.array(piece, { maxLength: 8 }).map((parts) => parts.join(''));
    const query = fc
      .array(fc.tuple(name, fc.constantFrom('', '=x', '=key')), { maxLength: 4 })
      .map((pairs) => pairs.map(([n, v]) => `${n}${v}`).join('&'));
    fc.assert(
      fc.property(query, (raw) => {
        expect(queryCarriesKey(raw)).toBe(reference(raw));
      }),
      { numRuns: 2000 },
    );
  });

  it('returns the caller’s X-Request-Id when it is a plain token, else a fresh one', async () => {
    const t = await buildTestApp();
    onTestFinished(() => t.app.close());
    expect(
      (await t.app.inject({ url: '/health', headers: { 'x-request-id': 'abc-123' } })).headers[
        'x-request-id'
      ],
    ).toBe('abc-123');
    const replaced = await t.app.inject({ url: '/health', headers: { 'x-request-id': 'bad id\u0007' } });
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    // A key put in the request id would be logged and echoed: it is replaced too.
    const keyed = await t.app.inject({ url: '/health', headers: { 'x-request-id': `trace-${t.key}` } });
    expect(keyed.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});
