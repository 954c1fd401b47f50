import { afterEach, describe, expect, it } from 'vitest';
import { memoryLimiters } from '../../src/limiter/open-limiter.ts';
import { buildTestApp, publicUrl, type TestApp, testConfig } from '../support/test-app.ts';

let t: TestApp;
afterEach(async () => {
  await t.app.close();
});

describe('errors of the whole app are RFC 9457 problems', () => {
  it('answers an unknown path with 404 not-found', async () => {
    t = await buildTestApp();
    const response = await t.app.inject({ url: '/v1/nope?x=1' });
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchInlineSnapshot(`
      {
        "code": "not-found",
        "detail": "Nothing exists at /v1/nope.",
        "instance": "/v1/nope",
        "status": 404,
        "title": "Not found",
        "type": "https://rates.example.test/docs/errors#not-found",
      }
    `);
  });

  it.each(['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const)(
    'answers %s on an existing path with 405 and Allow',
    async (method) => {
      t = await buildTestApp();
      for (const url of ['/v1/rates', '/v1/health', '/health']) {
        const response = await t.app.inject({ method, url, headers: { 'x-api-key': t.key } });
        expect(response.statusCode).toBe(405);
        expect(response.headers.allow).toBe('GET, HEAD');
        expect(response.json()).toMatchObject({ code: 'method-not-allowed', status: 405 });
      }
    },
  );

  it('answers a malformed body with a problem, not Fastify JSON', async () => {
    t = await buildTestApp();
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/nope',
      headers: { 'content-type': 'application/json' },
      payload: '{',
    });
    expect(response.statusCode).toBeGreaterThanOrEqual(400);
    expect(response.statusCode).toBeLessThan(500);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('answers an internal fault with a bare 500 problem: no stack, no message, a request id to quote', async () => {
    // A store that does not answer is a 503 (the key check says so); a fault of nerkh's own, here
    // a limiter that throws, is the 500.
    const limiters = memoryLimiters(testConfig());
    limiters.requests.take = () => {
      throw new Error('SQLITE_CORRUPT at /srv/secret/nerkh.db');
    };
    t = await buildTestApp({ deps: { limiters } });
    const response = await t.app.inject({ url: '/v1/rates', headers: { 'x-api-key': t.key } });
    expect(response.statusCode).toBe(500);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toEqual({
      type: `${publicUrl}/docs/errors#internal-error`,
      title: 'Internal error',
      status: 500,
      detail: 'The service failed to answer this request; the fault has been logged.',
      instance: '/v1/rates',
      code: 'internal-error',
    });
    expect(response.body).not.toMatch(/SQLITE|secret|at .*\.ts/);
    expect(response.headers['x-request-id']).toBeDefined();
  });
});
