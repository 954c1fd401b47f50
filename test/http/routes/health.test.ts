import { describe, expect, it, onTestFinished } from 'vitest';
import { buildTestApp, sampleSnapshot } from '../fixtures.ts';

describe('GET /v1/health', () => {
  it('answers application/health+json without a key, never cached, on both paths', async () => {
    const t = await buildTestApp();
    onTestFinished(() => t.app.close());
    for (const url of ['/v1/health', '/health']) {
      const response = await t.app.inject({ url });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/health\+json/);
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.headers.ratelimit).toBeUndefined();
      expect(response.json()).toMatchObject({ status: 'pass', count: 4, age_seconds: 60 });
    }
  });

  it('answers 503 fail before the first snapshot and 200 warn when it is getting old', async () => {
    const starting = await buildTestApp({ snapshot: null });
    onTestFinished(() => starting.app.close());
    const none = await starting.app.inject({ url: '/v1/health' });
    expect(none.statusCode).toBe(503);
    expect(none.json().status).toBe('fail');

    const unreported = await buildTestApp({ snapshot: sampleSnapshot(), collector: null });
    onTestFinished(() => unreported.app.close());
    const warn = await unreported.app.inject({ url: '/v1/health' });
    expect(warn.statusCode).toBe(200);
    expect(warn.json().status).toBe('warn');
  });
});
