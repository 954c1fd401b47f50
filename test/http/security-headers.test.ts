import { afterEach, describe, expect, it } from 'vitest';
import { securityHeaders, serviceSecurityHeaders } from '../../src/http/security-headers.ts';
import { buildTestApp, type TestApp } from './fixtures.ts';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.app.close();
  t = undefined;
});

/** What helmet's defaults send, besides the CSP the app configures. */
const helmetDefaults = {
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'SAMEORIGIN',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
};

describe('security headers', () => {
  it('are worked out once from helmet: its defaults plus the configured CSP', () => {
    const headers = Object.fromEntries(
      securityHeaders({
        contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"] } },
      }),
    );
    expect(headers).toEqual({ 'content-security-policy': "default-src 'none'", ...helmetDefaults });
  });

  it('of the service: helmet defaults and a CSP that loads only from the origin, runs no inline code and cannot be framed', () => {
    const { 'content-security-policy': csp, ...rest } = Object.fromEntries(serviceSecurityHeaders());
    expect(rest).toEqual(helmetDefaults);
    const directives = new Map(
      (csp ?? '').split(';').map((directive) => {
        const [name = '', ...values] = directive.trim().split(/\s+/);
        return [name, values.join(' ')];
      }),
    );
    expect(Object.fromEntries(directives)).toMatchObject({
      'default-src': "'self'",
      'script-src': "'self'",
      'style-src': "'self'",
      'object-src': "'none'",
      'base-uri': "'none'",
      'frame-ancestors': "'none'",
    });
    // On a plain-HTTP local run it would break every same-origin asset.
    expect(directives.has('upgrade-insecure-requests')).toBe(false);
  });

  it('are on every response: the API, its errors and 304s, health and unknown paths', async () => {
    t = await buildTestApp();
    const ok = await t.app.inject({ url: '/v1/rates', headers: { 'x-api-key': t.key } });
    const responses = [
      ok,
      await t.app.inject({
        url: '/v1/rates',
        headers: { 'x-api-key': t.key, 'if-none-match': ok.headers.etag },
      }),
      await t.app.inject({ url: '/v1/rates' }),
      await t.app.inject({ url: '/v1/rates?symbol=NOPE', headers: { 'x-api-key': t.key } }),
      await t.app.inject({ url: '/v1/health' }),
      await t.app.inject({ url: '/nope' }),
    ];
    expect(responses.map((response) => response.statusCode)).toEqual([200, 304, 401, 404, 200, 404]);
    for (const response of responses) {
      expect(response.headers).toMatchObject(helmetDefaults);
      expect(response.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    }
  });

  it('sets security headers fit for a JSON API on every response', async () => {
    t = await buildTestApp();
    for (const url of ['/v1/rates', '/v1/health', '/nope']) {
      const response = await t.app.inject({ url, headers: { 'x-api-key': t.key } });
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(response.headers['referrer-policy']).toBe('no-referrer');
      expect(response.headers['x-powered-by']).toBeUndefined();
    }
  });
});
