import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it, onTestFinished } from 'vitest';
import { issueApiKey } from '../../../src/keys/issue-key.ts';
import { MemoryApiKeyStore } from '../../../src/store/memory/key-store.ts';
import { buildTestApp, publicUrl, type TestApp, type TestAppOptions } from '../../support/test-app.ts';

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

/** What a request carried, so a HEAD request can be repeated as GET. */
interface Sent {
  url: string;
  headers: Record<string, string>;
}

/** Header fields that differ between any two responses, or count each request (`RateLimit`'s r). */
const perResponseFields = new Set(['date', 'x-request-id', 'ratelimit']);

function comparableFields(response: LightMyRequestResponse): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(response.headers).filter(([name]) => !perResponseFields.has(name)),
  );
}

/** A fresh app, closed when the test ends, whether its assertions pass or not. */
async function openApp(options?: TestAppOptions): Promise<TestApp> {
  const t = await buildTestApp(options);
  onTestFinished(() => t.app.close());
  return t;
}

/**
 * What every route behind X-API-Key must do (content/docs.md "Authentication"): the unkey pattern of one
 * shared suite per capability. Each test builds its own app; nothing is shared between tests.
 *
 * Run for HEAD, every request is sent as HEAD. HEAD must answer exactly as GET would, without the
 * body (RFC 9110 §9.3.2): each checked answer is compared with the same request sent as GET, whose
 * body shows the problem HEAD's headers describe. Those GET twins cost nothing the test counts on:
 * requests refused before admission consume no quota, and an admitted twin's extra slot is left
 * out of the comparison (`RateLimit`).
 */
export function describeAuthenticatedRoute(route: AuthenticatedRoute): void {
  const send = (t: TestApp, headers: Record<string, string> = {}, url = route.url) =>
    t.app.inject({ method: route.method, url, headers });
  const withQuery = (name: string, value: string) =>
    `${route.url}${route.url.includes('?') ? '&' : '?'}${name}=${value}`;

  /** The answer as GET gives it: for HEAD, the GET twin, once HEAD is checked to repeat it without a body. */
  async function asGet(t: TestApp, response: LightMyRequestResponse, sent: Sent) {
    if (route.method === 'GET') return response;
    const get = await t.app.inject({ method: 'GET', url: sent.url, headers: sent.headers });
    expect(response.statusCode).toBe(get.statusCode);
    expect(response.body).toBe('');
    expect(comparableFields(response)).toEqual(comparableFields(get));
    return get;
  }

  /** Checks the problem `response` describes; for HEAD its GET twin carries the body. */
  async function expectProblem(
    t: TestApp,
    response: LightMyRequestResponse,
    sent: Sent,
    code: string,
    status: number,
  ): Promise<Problem> {
    expect(response.statusCode).toBe(status);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    const answer = await asGet(t, response, sent);
    const body = JSON.parse(answer.body);
    expect(body).toMatchObject({ type: `${publicUrl}/docs/errors#${code}`, status, code });
    expect(typeof body.title).toBe('string');
    expect(typeof body.detail).toBe('string');
    expect(response.headers['content-length']).toBe(String(Buffer.byteLength(answer.body)));
    return body;
  }

  describe(`${route.method} ${route.url} requires X-API-Key`, () => {
    it('answers 401 missing-api-key without a key, naming how to authenticate', async () => {
      const t = await openApp();
      const response = await send(t);
      expect(response.headers['www-authenticate']).toContain('X-API-Key');
      await expectProblem(t, response, { url: route.url, headers: {} }, 'missing-api-key', 401);
    });

    it.each(['key', 'api_key', 'apikey', 'API_KEY'])(
      'answers 401 to a valid key in ?%s= and says to treat it as exposed',
      async (name) => {
        const t = await openApp();
        const url = withQuery(name, t.key);
        const response = await send(t, {}, url);
        const body = await expectProblem(t, response, { url, headers: {} }, 'missing-api-key', 401);
        expect(body.detail).toMatch(/query string/);
        expect(body.detail).toMatch(/exposed/);
        expect(response.body).not.toContain(t.key);
        expect(JSON.stringify(body)).not.toContain(t.key);
      },
    );

    it.each([
      ['unknown but well formed', unknownKey],
      ['malformed', async () => 'nerkh_not-a-key'],
      ['with a broken checksum', async () => 'nerkh_AAAAAAAAAAAAAAAAAAAAAA_AAAAAA'],
      ['empty after trimming', async () => ' '],
    ])('answers 403 invalid-api-key to a key that is %s', async (_label, makeKey) => {
      const t = await openApp();
      const headers = { 'x-api-key': await makeKey() };
      const response = await send(t, headers);
      await expectProblem(t, response, { url: route.url, headers }, 'invalid-api-key', 403);
      expect(response.headers.ratelimit).toBeUndefined();
    });

    it('answers 403 to a revoked key once the app polls the change, the same answer as to an unknown key', async () => {
      const t = await openApp({ deps: { pollMs: 20 } });
      const headers = { 'x-api-key': t.key };
      expect((await send(t, headers)).statusCode).toBe(route.okStatus);
      await t.keys.revokeApiKey(t.keyId);
      const deadline = Date.now() + 2000;
      let response = await send(t, headers);
      while (response.statusCode !== 403 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        response = await send(t, headers);
      }
      const revoked = await expectProblem(t, response, { url: route.url, headers }, 'invalid-api-key', 403);
      const unknownHeaders = { 'x-api-key': await unknownKey() };
      const unknown = await send(t, unknownHeaders);
      expect(response.body).toBe(unknown.body);
      expect(comparableFields(response)).toEqual(comparableFields(unknown));
      expect(revoked).toEqual(
        await expectProblem(t, unknown, { url: route.url, headers: unknownHeaders }, 'invalid-api-key', 403),
      );
    });

    it('answers 403 to an expired key', async () => {
      const t = await openApp();
      const expired = await issueApiKey(t.keys, {
        org: 'x',
        purpose: 'y',
        expiresAt: new Date(t.clock.nowMs - 1000).toISOString(),
      });
      const headers = { 'x-api-key': expired.key };
      await expectProblem(t, await send(t, headers), { url: route.url, headers }, 'invalid-api-key', 403);
    });

    it('carries RateLimit and RateLimit-Policy on an admitted request', async () => {
      const t = await openApp();
      const headers = { 'x-api-key': t.key };
      const response = await send(t, headers);
      expect(response.statusCode).toBe(route.okStatus);
      expect(response.headers['ratelimit-policy']).toBe('"default";q=60;w=60');
      expect(response.headers.ratelimit).toBe('"default";r=59;t=60');
      // For HEAD: GET's status, ETag, Content-Length and every other field, and no body.
      const get = await asGet(t, response, { url: route.url, headers });
      expect(response.headers.etag).toBe(get.headers.etag);
      expect(response.headers['content-length']).toBe(String(get.rawPayload.length));
    });

    it('admits 60 requests per rolling minute, refuses the 61st with 429, Retry-After and a problem; other keys unaffected; a freed slot admits again', async () => {
      const t = await openApp();
      const other = await t.issue();
      const headers = { 'x-api-key': t.key };
      for (let i = 0; i < 60; i++) {
        const response = await send(t, headers);
        expect(response.statusCode).toBe(route.okStatus);
        t.clock.advance(500);
      }
      // 30 s after the first request: the 61st inside the minute.
      const refused = await send(t, headers);
      expect(refused.headers['retry-after']).toBe('30');
      expect(refused.headers.ratelimit).toBe('"default";r=0;t=30');
      expect(refused.headers['ratelimit-policy']).toBe('"default";q=60;w=60');
      const body = await expectProblem(t, refused, { url: route.url, headers }, 'rate-limited', 429);
      expect(body['violated-policies']).toEqual(['default']);

      expect((await send(t, { 'x-api-key': other.key })).statusCode).toBe(route.okStatus);

      // Refusals consume nothing: after 30 more seconds exactly one slot (the first request's) is free.
      t.clock.advance(30_000);
      expect((await send(t, headers)).statusCode).toBe(route.okStatus);
      expect((await send(t, headers)).statusCode).toBe(429);
    });

    it('honours a per-key limit override', async () => {
      const t = await openApp();
      const small = await t.issue(2);
      const headers = { 'x-api-key': small.key };
      expect((await send(t, headers)).headers['ratelimit-policy']).toBe('"default";q=2;w=60');
      expect((await send(t, headers)).statusCode).toBe(route.okStatus);
      expect((await send(t, headers)).statusCode).toBe(429);
    });

    it('pauses key checks from an address after 30 invalid keys a minute, even for a valid key', async () => {
      const t = await openApp();
      for (let i = 0; i < 30; i++) {
        expect((await send(t, { 'x-api-key': `nerkh_guess${i}` })).statusCode).toBe(403);
      }
      const headers = { 'x-api-key': t.key };
      const paused = await send(t, headers);
      expect(Number(paused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      await expectProblem(t, paused, { url: route.url, headers }, 'too-many-failed-keys', 429);
      t.clock.advance(60_000);
      expect((await send(t, headers)).statusCode).toBe(route.okStatus);
    });

    it('counts invalid keys from IPv6 by the /64, so rotating addresses within it does not lift the pause', async () => {
      const t = await openApp();
      const from = (remoteAddress: string, key: string) =>
        t.app.inject({ method: route.method, url: route.url, headers: { 'x-api-key': key }, remoteAddress });
      for (let i = 0; i < 30; i++) {
        expect((await from(`2001:db8:5:6::${(i + 1).toString(16)}`, `nerkh_guess${i}`)).statusCode).toBe(403);
      }
      expect((await from('2001:db8:5:6:abcd::1', t.key)).statusCode).toBe(429);
      expect((await from('2001:db8:5:7::1', t.key)).statusCode).toBe(route.okStatus);
    });
  });
}
