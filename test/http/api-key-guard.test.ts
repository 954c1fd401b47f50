import { describe, expect, it, onTestFinished } from 'vitest';
import { buildTestApp, type TestApp } from './fixtures.ts';

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
