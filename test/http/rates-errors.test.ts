import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, publicUrl, type TestApp } from './fixtures.ts';

let t: TestApp;
afterEach(async () => {
  await t.app.close();
});

const get = (url: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url, headers: { 'x-api-key': t.key, ...headers } });

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
    t = await buildTestApp();
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
    t = await buildTestApp();
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
      }
    `);
  });

  it('checks the key before validating: a bad key with a bad symbol is 403, no key is 401', async () => {
    t = await buildTestApp();
    expect((await get('/v1/rates?symbol=!!', { 'x-api-key': 'nerkh_bad' })).statusCode).toBe(403);
    expect((await t.app.inject({ url: '/v1/rates?symbol=!!' })).statusCode).toBe(401);
  });

  it('counts invalid-symbol requests against the quota (the rate limit runs before validation)', async () => {
    t = await buildTestApp();
    const small = await t.issue(1);
    expect((await get('/v1/rates?symbol=!!', { 'x-api-key': small.key })).statusCode).toBe(400);
    expect((await get('/v1/rates?symbol=!!', { 'x-api-key': small.key })).statusCode).toBe(429);
  });

  it('answers 503 service-unavailable with Retry-After before the first snapshot, after the key check', async () => {
    t = await buildTestApp({ snapshot: null });
    expect((await t.app.inject({ url: '/v1/rates' })).statusCode).toBe(401);
    const response = await get('/v1/rates');
    expect(response.statusCode).toBe(503);
    expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(response.json()).toMatchObject({ code: 'service-unavailable', status: 503 });
  });

  it('keeps serving the last snapshot when the store fails, and says nothing of the fault', async () => {
    t = await buildTestApp({ deps: { pollMs: 10 } });
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
