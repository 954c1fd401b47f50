import { afterEach, describe, expect, it } from 'vitest';
import { securityHeaders, serviceSecurityHeaders } from '../../../src/http/edge/security-headers.ts';
import { buildTestApp, type TestApp } from '../../support/test-app.ts';

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

/** The security headers that protect any response with a body, not only an HTML page. */
const everyBody = {
  'cross-origin-resource-policy': 'same-origin',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
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

  it('are all on HTML pages; on other responses with a body only nosniff, HSTS and the resource policy; none on a 304', async () => {
    t = await buildTestApp();
    const page = await t.app.inject({ url: '/', headers: { accept: 'text/html' } });
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const { 'content-security-policy': _pageCsp, ...pageHeaders } = page.headers;
    expect(pageHeaders).toMatchObject(helmetDefaults);
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");

    const ok = await t.app.inject({ url: '/v1/rates', headers: { 'x-api-key': t.key } });
    const withBody = [
      ok,
      await t.app.inject({ url: '/v1/rates' }),
      await t.app.inject({ url: '/v1/rates?symbol=NOPE', headers: { 'x-api-key': t.key } }),
      await t.app.inject({ url: '/v1/health' }),
      await t.app.inject({ url: '/nope' }),
    ];
    expect(withBody.map((response) => response.statusCode)).toEqual([200, 401, 404, 200, 404]);
    const htmlOnly = Object.keys(helmetDefaults).filter((name) => !(name in everyBody));
    for (const response of withBody) {
      expect(response.headers['content-type']).toMatch(/^application\/((problem|health)\+)?json/);
      expect(response.headers).toMatchObject(everyBody);
      for (const name of [...htmlOnly, 'content-security-policy'])
        expect(response.headers[name]).toBeUndefined();
      expect(response.headers['x-powered-by']).toBeUndefined();
    }

    // A 304 updates the client's stored 200 (RFC 9111 §4.3.4), which keeps its own security headers.
    const notModified = await t.app.inject({
      url: '/v1/rates',
      headers: { 'x-api-key': t.key, 'if-none-match': ok.headers.etag },
    });
    expect(notModified.statusCode).toBe(304);
    for (const name of [...Object.keys(helmetDefaults), 'content-security-policy'])
      expect(notModified.headers[name]).toBeUndefined();
  });
});
