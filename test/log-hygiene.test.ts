import { describe, expect, it } from 'vitest';
import { hashApiKey } from '../src/keys/api-key.ts';
import { issueApiKey } from '../src/keys/issue-key.ts';
import { createLogger } from '../src/logger.ts';
import { rawExchange } from './support/raw-http.ts';
import { startSimulatedService } from './support/simulated-service.ts';
import { LogCapture } from './support/test-app.ts';

/**
 * A run of the whole service at the most verbose log level, fed keys and email addresses in every
 * place a client might put them, whose log is then searched for them (docs/operations.md "Logs":
 * no key ever; the client address only in the access line's `ip`).
 */
describe('the log of a run', () => {
  it('never carries a key, its hash or an email address, and the client address only as the access line’s ip', {
    timeout: 30_000,
  }, async () => {
    const logs = new LogCapture();
    const service = await startSimulatedService({
      symbols: ['USDT', 'BTC'],
      logger: createLogger('trace', logs),
      env: { LOG_LEVEL: 'trace' },
    });
    const base = service.url as string;

    const { key } = await issueApiKey(service.store.keys, {
      org: 'Log Org',
      purpose: 'tests',
      contact: 'ops@log-org.example',
    });
    const revoked = await issueApiKey(service.store.keys, { org: 'Old Org', purpose: 'tests' });
    await service.store.keys.revokeApiKey(revoked.record.id);
    const secrets = [
      key,
      key.slice(6, 28),
      hashApiKey(key),
      revoked.key,
      'ops@log-org.example',
      'sara@kavir.example',
    ];

    const get = (path: string, headers: Record<string, string> = {}) => fetch(`${base}${path}`, { headers });
    expect((await get('/v1/rates', { 'x-api-key': key })).status).toBe(200);
    expect((await get('/v1/rates?symbol=BTC', { 'x-api-key': key })).status).toBe(200);
    expect((await get('/v1/rates', { 'x-api-key': revoked.key })).status).toBe(403);
    expect((await get(`/v1/rates?key=${key}`)).status).toBe(401);
    expect((await get(`/v1/rates?symbol=BTC&API_KEY=${key}`)).status).toBe(401);
    expect((await get(`/v1/rates?%6Bey=${key}`)).status).toBe(401);
    expect((await get('/v1/rates', { 'x-api-key': key, 'x-request-id': key })).status).toBe(200);
    expect(
      (
        await get('/v1/rates', {
          authorization: `Bearer ${key}`,
          'user-agent': key,
          referer: `https://x.example/?k=${key}`,
        })
      ).status,
    ).toBe(401);
    expect((await get('/v1/rates', { 'x-api-key': `${key}, ${key}` })).status).toBe(403);
    expect((await get('/v1/rates', { 'x-api-key': 'x'.repeat(9000) })).status).toBeGreaterThanOrEqual(400);
    await rawExchange(
      Number(new URL(base).port),
      `GET /v1/rates HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nX-API-Key: ${key}\r\nContent-Length: 5\r\n\r\n{"a":`,
    );
    await rawExchange(
      Number(new URL(base).port),
      `GET /v1/rates?key=${key} HTTP/1.1\r\nHost: x\r\nX-API-Key: \u0001${key}\r\n\r\n`,
    );

    // The contact form: a submission with an email address, and one with a key pasted in.
    const form = await get('/contact');
    const cookie = String(form.headers.get('set-cookie')).split(';')[0] as string;
    const token = /name="csrf_token" value="([^"]+)"/.exec(await form.text())?.[1] as string;
    for (const purpose of ['Show toman prices in our app', `my key is ${key}`]) {
      const body = new URLSearchParams({
        name: 'Sara Ahmadi',
        org: 'Kavir Analytics',
        email: 'sara@kavir.example',
        purpose,
        csrf_token: token,
        website: '',
      });
      const response = await fetch(`${base}/contact`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
        body,
        redirect: 'manual',
      });
      expect(response.status).toBe(303);
    }
    // A bad email is echoed to its sender on the page, never to the log.
    await fetch(`${base}/contact`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams({
        name: 'x',
        org: 'y',
        email: 'sara@kavir.example@@',
        purpose: 'z',
        csrf_token: token,
      }),
    });
    await fetch(service.metricsUrl as string);
    await service.stop();

    const lines = logs.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.filter((line) => line.msg === 'request').length).toBeGreaterThanOrEqual(14);
    for (const secret of secrets) expect(logs.lines.filter((line) => line.includes(secret))).toEqual([]);
    expect(logs.lines.filter((line) => /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+\.[A-Za-z]/.test(line))).toEqual([]);
    // The client address: in the access line's ip field, nowhere else.
    for (const line of lines) {
      const { ip, ...rest } = line;
      if (ip !== undefined) expect(line.msg).toBe('request');
      expect(JSON.stringify(rest)).not.toMatch(/127\.0\.0\.1(?!:\d)|::ffff:127/);
    }
  });
});
