import { describe, expect, it } from 'vitest';
import { issueApiKey } from '../../src/keys/issue-key.ts';
import { MemoryApiKeyStore } from '../../src/store/memory/key-store.ts';
import { buildTestApp, publicUrl, type TestApp } from './fixtures.ts';

/** A well-formed key issued into a store the app does not know. */
async function unknownKey(): Promise<string> {
  return (await issueApiKey(new MemoryApiKeyStore(), { org: 'elsewhere', purpose: 'test' })).key;
}

export interface AuthenticatedRoute {
  method: 'GET' | 'HEAD';
  /** Path with any valid query; the suite adds none of its own except key parameters. */
  url: string;
  /** Status of a valid, admitted request. */
  okStatus: number;
}

interface Problem {
  detail: string;
  'violated-policies'?: string[];
}

/** Checks the problem shape; HEAD answers carry the headers of a problem but no body (RFC 9110 §9.3.2). */
function expectProblem(
  response: { headers: Record<string, unknown>; body: string },
  code: string,
  status: number,
  method: string,
): Problem {
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  if (method === 'HEAD') {
    expect(response.body).toBe('');
    return { detail: '' };
  }
  const body = JSON.parse(response.body);
  expect(body).toMatchObject({ type: `${publicUrl}/docs/errors#${code}`, status, code });
  expect(typeof body.title).toBe('string');
  expect(typeof body.detail).toBe('string');
  return body;
}

/**
 * What every route behind X-API-Key must do (spec §5, §7; design §2): the unkey pattern of one
 * shared suite per capability. Each test builds its own app; nothing is shared between tests.
 */
export function describeAuthenticatedRoute(route: AuthenticatedRoute): void {
  const inject = (t: TestApp, headers: Record<string, string> = {}, url = route.url) =>
    t.app.inject({ method: route.method, url, headers });
  const withQuery = (name: string, value: string) =>
    `${route.url}${route.url.includes('?') ? '&' : '?'}${name}=${value}`;

  describe(`${route.method} ${route.url} requires X-API-Key`, () => {
    it('answers 401 missing-api-key without a key, naming how to authenticate', async () => {
      const t = await buildTestApp();
      const response = await t.app.inject({ method: 'GET', url: route.url });
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toContain('X-API-Key');
      expectProblem(response, 'missing-api-key', 401, 'GET');
      await t.app.close();
    });

    it.each(['key', 'api_key', 'apikey', 'API_KEY'])(
      'answers 401 to a valid key in ?%s= and says to treat it as exposed',
      async (name) => {
        const t = await buildTestApp();
        const response = await t.app.inject({ method: 'GET', url: withQuery(name, t.key) });
        expect(response.statusCode).toBe(401);
        const body = expectProblem(response, 'missing-api-key', 401, 'GET');
        expect(body.detail).toMatch(/query string/);
        expect(body.detail).toMatch(/exposed/);
        expect(response.body).not.toContain(t.key);
        await t.app.close();
      },
    );

    it.each([
      ['unknown but well formed', unknownKey],
      ['malformed', async () => 'nerkh_not-a-key'],
      ['with a broken checksum', async () => 'nerkh_AAAAAAAAAAAAAAAAAAAAAA_AAAAAA'],
      ['empty after trimming', async () => ' '],
    ])('answers 403 invalid-api-key to a key that is %s', async (_label, makeKey) => {
      const t = await buildTestApp();
      const response = await inject(t, { 'x-api-key': await makeKey() });
      expect(response.statusCode).toBe(403);
      expectProblem(response, 'invalid-api-key', 403, route.method);
      expect(response.headers.ratelimit).toBeUndefined();
      await t.app.close();
    });

    it('answers 403 to a revoked key once the app polls the change, the same answer as to an unknown key', async () => {
      const t = await buildTestApp({ deps: { pollMs: 20 } });
      expect((await inject(t, { 'x-api-key': t.key })).statusCode).toBe(route.okStatus);
      await t.keys.revokeApiKey(t.keyId);
      const deadline = Date.now() + 2000;
      let response = await inject(t, { 'x-api-key': t.key });
      while (response.statusCode !== 403 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        response = await inject(t, { 'x-api-key': t.key });
      }
      expect(response.statusCode).toBe(403);
      const unknown = await inject(t, { 'x-api-key': await unknownKey() });
      expect(response.body).toBe(unknown.body);
      await t.app.close();
    });

    it('answers 403 to an expired key', async () => {
      const t = await buildTestApp();
      const expired = await issueApiKey(t.keys, {
        org: 'x',
        purpose: 'y',
        expiresAt: new Date(t.clock.nowMs - 1000).toISOString(),
      });
      expect((await inject(t, { 'x-api-key': expired.key })).statusCode).toBe(403);
      await t.app.close();
    });

    it('carries RateLimit and RateLimit-Policy on an admitted request', async () => {
      const t = await buildTestApp();
      const response = await inject(t, { 'x-api-key': t.key });
      expect(response.statusCode).toBe(route.okStatus);
      expect(response.headers['ratelimit-policy']).toBe('"default";q=60;w=60');
      expect(response.headers.ratelimit).toBe('"default";r=59;t=60');
      await t.app.close();
    });

    it('admits 60 requests per rolling minute, refuses the 61st with 429, Retry-After and a problem; other keys unaffected; a freed slot admits again', async () => {
      const t = await buildTestApp();
      const other = await t.issue();
      for (let i = 0; i < 60; i++) {
        const response = await inject(t, { 'x-api-key': t.key });
        expect(response.statusCode).toBe(route.okStatus);
        t.clock.advance(500);
      }
      // 30 s after the first request: the 61st inside the minute.
      const refused = await inject(t, { 'x-api-key': t.key });
      expect(refused.statusCode).toBe(429);
      expect(refused.headers['retry-after']).toBe('30');
      expect(refused.headers.ratelimit).toBe('"default";r=0;t=30');
      expect(refused.headers['ratelimit-policy']).toBe('"default";q=60;w=60');
      const body = expectProblem(refused, 'rate-limited', 429, route.method);
      if (route.method === 'GET') expect(body['violated-policies']).toEqual(['default']);

      expect((await inject(t, { 'x-api-key': other.key })).statusCode).toBe(route.okStatus);

      // Refusals consume nothing: after 30 more seconds exactly one slot (the first request's) is free.
      t.clock.advance(30_000);
      expect((await inject(t, { 'x-api-key': t.key })).statusCode).toBe(route.okStatus);
      expect((await inject(t, { 'x-api-key': t.key })).statusCode).toBe(429);
      await t.app.close();
    });

    it('honours a per-key limit override', async () => {
      const t = await buildTestApp();
      const small = await t.issue(2);
      expect((await inject(t, { 'x-api-key': small.key })).headers['ratelimit-policy']).toBe(
        '"default";q=2;w=60',
      );
      expect((await inject(t, { 'x-api-key': small.key })).statusCode).toBe(route.okStatus);
      expect((await inject(t, { 'x-api-key': small.key })).statusCode).toBe(429);
      await t.app.close();
    });

    it('pauses key checks from an address after 30 invalid keys a minute, even for a valid key', async () => {
      const t = await buildTestApp();
      for (let i = 0; i < 30; i++) {
        expect((await inject(t, { 'x-api-key': `nerkh_guess${i}` })).statusCode).toBe(403);
      }
      const paused = await inject(t, { 'x-api-key': t.key });
      expect(paused.statusCode).toBe(429);
      expect(Number(paused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expectProblem(paused, 'too-many-failed-keys', 429, route.method);
      t.clock.advance(60_000);
      expect((await inject(t, { 'x-api-key': t.key })).statusCode).toBe(route.okStatus);
      await t.app.close();
    });
  });
}
