import { describe, expect, it, onTestFinished } from 'vitest';
import { buildTestApp, type TestApp } from '../../support/test-app.ts';

describe('pausing key guesses per client behind a proxy (NERKH_TRUST_PROXY)', () => {
  const guess = (t: TestApp, forwardedFor: string, key: string) =>
    t.app.inject({ url: '/v1/rates', headers: { 'x-api-key': key, 'x-forwarded-for': forwardedFor } });

  it.each(['127.0.0.1', '10.0.0.0/8, 127.0.0.0/8', '1'])(
    'counts failures per forwarded client when the proxy is trusted (%s)',
    async (trusted) => {
      const t = await buildTestApp({ env: { NERKH_TRUST_PROXY: trusted } });
      onTestFinished(() => t.app.close());
      for (let i = 0; i < 30; i++) await guess(t, '203.0.113.7', `nerkh_guess${i}`);
      expect((await guess(t, '203.0.113.7', t.key)).statusCode).toBe(429);
      expect((await guess(t, '198.51.100.2', t.key)).statusCode).toBe(200);
    },
  );

  it('ignores X-Forwarded-For from an untrusted peer, so a client cannot dodge the pause', async () => {
    const t = await buildTestApp();
    onTestFinished(() => t.app.close());
    for (let i = 0; i < 30; i++) await guess(t, `203.0.113.${i}`, `nerkh_guess${i}`);
    expect((await guess(t, '198.51.100.2', t.key)).statusCode).toBe(429);
  });
});

describe('a key store that does not answer (PostgreSQL down)', () => {
  it('answers a key it has not cached with 503 service-unavailable and Retry-After, and keeps serving cached keys', async () => {
    // Both keys issued before the app starts: a key issued after would change the keys' version,
    // and the app's poll of it would drop the cached key too.
    const t = await buildTestApp({ secondKey: {} });
    onTestFinished(() => t.app.close());
    const get = (key: string) => t.app.inject({ url: '/v1/rates', headers: { 'x-api-key': key } });
    expect((await get(t.key)).statusCode).toBe(200);
    const uncached = t.secondKey as string;
    t.keys.findApiKeyByHash = async () => {
      throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
    };
    const refused = await get(uncached);
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.json()).toMatchObject({ code: 'service-unavailable', status: 503 });
    expect(refused.body).not.toContain('ECONNREFUSED');
    expect((await get(t.key)).statusCode).toBe(200);
  });
});
