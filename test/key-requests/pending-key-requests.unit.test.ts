import { Registry } from 'prom-client';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { HttpMetrics } from '../../src/metrics/http-metrics.ts';
import { MemoryKeyRequestStore } from '../../src/store/memory/key-request-store.ts';
import { seriesValue } from '../support/scrape.ts';
import { buildTestApp, type TestApp } from '../support/test-app.ts';
import { startWebhookReceiver } from '../support/webhook-receiver.ts';

const fields = {
  name: 'Sara Ahmadi',
  org: 'Kavir Analytics',
  email: 'sara@kavir.example',
  purpose: 'Show toman prices of coins in our portfolio app',
  expected_use: '',
};

/** Sends the contact form as a browser does: the form first (token and cookie), then the post. */
async function submitForm(t: TestApp) {
  const form = await t.app.inject({ method: 'GET', url: '/contact', remoteAddress: '203.0.113.7' });
  const token = /name="csrf_token" value="([^"]+)"/.exec(form.body)?.[1] ?? '';
  return t.app.inject({
    method: 'POST',
    url: '/contact',
    remoteAddress: '203.0.113.7',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: String(form.headers['set-cookie']).split(';')[0] as string,
    },
    payload: new URLSearchParams({ ...fields, csrf_token: token, website: '' }).toString(),
  });
}

describe('a new key request', () => {
  it('raises nerkh_key_requests_pending, lowered when the operator decides it in another process', async () => {
    const keyRequests = new MemoryKeyRequestStore();
    await keyRequests.createKeyRequest({ ...fields, expected_use: null, client_hash: 'earlier' });
    const registry = new Registry();
    const t = await buildTestApp({
      deps: { keyRequests, metrics: new HttpMetrics(registry), keyRequestsPollMs: 50 },
    });
    onTestFinished(() => t.app.close());
    const pending = async () => seriesValue(await registry.metrics(), 'nerkh_key_requests_pending');
    // Read from the store at start: a request made before this instance started counts.
    expect(await pending()).toBe(1);

    expect((await submitForm(t)).statusCode).toBe(303);
    await vi.waitFor(async () => expect(await pending()).toBe(2));

    // `nerkh requests reject` writes to the store from its own process; the count follows.
    const [first] = await keyRequests.listKeyRequests({ status: 'pending' });
    await keyRequests.decideKeyRequest(first?.id ?? '', { status: 'rejected' });
    await vi.waitFor(async () => expect(await pending()).toBe(1));
  });

  it('is POSTed to NERKH_REQUESTS_WEBHOOK_URL without the email, retried, and never delays the answer', async () => {
    let release: (status: number) => void = () => {};
    const held = new Promise<number>((resolve) => {
      release = resolve;
    });
    // The receiver holds its first answer until the form has been answered, then fails it; the
    // second attempt succeeds.
    const receiver = await startWebhookReceiver((n) => (n === 1 ? held : 200));
    const keyRequests = new MemoryKeyRequestStore();
    const t = await buildTestApp({
      env: { NERKH_REQUESTS_WEBHOOK_URL: receiver.url },
      deps: { keyRequests },
    });
    onTestFinished(() => t.app.close());

    const answer = await submitForm(t);
    expect(answer.statusCode).toBe(303);
    await vi.waitFor(() => expect(receiver.received).toHaveLength(1));
    release(503);
    await vi.waitFor(() => expect(receiver.received).toHaveLength(2), { timeout: 3000 });

    const [stored] = await keyRequests.listKeyRequests();
    for (const got of receiver.received) {
      expect(got.body).not.toContain(fields.email);
      expect(JSON.parse(got.body)).toMatchObject({
        event: 'key_request',
        id: stored?.id,
        name: fields.name,
        org: fields.org,
        created_at: stored?.created_at,
      });
    }
  });
});
