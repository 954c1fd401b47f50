import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { KeyRequestWebhook } from '../../src/key-requests/key-request-webhook.ts';
import { createLogger } from '../../src/logger.ts';
import { newKeyRequest } from '../../src/store/key-request.ts';
import { freePort } from '../support/run-cli.ts';
import { LogCapture } from '../support/test-app.ts';
import { startWebhookReceiver } from '../support/webhook-receiver.ts';

const request = newKeyRequest(
  {
    name: 'Sara Ahmadi',
    org: 'Kavir Analytics',
    email: 'sara@kavir.example',
    purpose: 'portfolio app',
    expected_use: null,
    client_hash: 'c1',
  },
  new Date('2025-06-01T10:24:00Z'),
);

function webhookTo(url: string, logs: LogCapture, attempts = 4) {
  const webhook = new KeyRequestWebhook({
    url,
    logger: createLogger('info', logs),
    attempts,
    baseDelayMs: 20,
    maxDelayMs: 100,
    timeoutMs: 2000,
  });
  onTestFinished(() => webhook.close());
  return webhook;
}

describe('KeyRequestWebhook', () => {
  it('POSTs the request id, name, organisation and time as JSON, never the email, retrying until it is taken', async () => {
    const receiver = await startWebhookReceiver((n) => (n === 1 ? 503 : n === 2 ? 429 : 204));
    const logs = new LogCapture();
    webhookTo(receiver.url, logs).send(request);
    await vi.waitFor(() => expect(receiver.received).toHaveLength(3));
    await vi.waitFor(() => expect(logs.text).toContain('key request sent to the webhook'));
    for (const got of receiver.received) {
      expect(got.method).toBe('POST');
      expect(got.contentType).toBe('application/json');
      expect(got.body).not.toContain('sara@kavir.example');
      expect(got.body).not.toContain('portfolio app');
    }
    expect(JSON.parse(receiver.received[2]?.body ?? '')).toEqual({
      event: 'key_request',
      id: request.id,
      name: 'Sara Ahmadi',
      org: 'Kavir Analytics',
      created_at: '2025-06-01T10:24:00.000Z',
      text: `New API key request ${request.id} from Sara Ahmadi (Kavir Analytics); review it with: nerkh requests list`,
    });
    // The URL's token never reaches a log, nor the requester's email.
    expect(logs.text).not.toContain('secret-token');
    expect(logs.text).not.toContain('sara@');
    expect(logs.text.match(/webhook attempt failed; retrying/g)).toHaveLength(2);
    expect(logs.text).toContain('HTTP 503');
  });

  it('gives up after its attempts, and at once on an answer another attempt cannot change', async () => {
    const failing = await startWebhookReceiver(() => 500);
    const refusing = await startWebhookReceiver(() => 404);
    const logs = new LogCapture();
    webhookTo(failing.url, logs, 3).send(request);
    webhookTo(refusing.url, logs, 3).send(request);
    await vi.waitFor(() => expect(logs.text.match(/key request not sent to the webhook;/g)).toHaveLength(2));
    expect(failing.received).toHaveLength(3);
    expect(refusing.received).toHaveLength(1);
  });

  it('retries a receiver that is not listening yet, and stops retrying at close', async () => {
    const logs = new LogCapture();
    const webhook = new KeyRequestWebhook({
      url: `http://127.0.0.1:${await freePort()}/hook`,
      logger: createLogger('info', logs),
      baseDelayMs: 60_000,
    });
    webhook.send(request);
    await vi.waitFor(() => expect(logs.text).toContain('ECONNREFUSED'));
    const started = performance.now();
    await webhook.close();
    expect(performance.now() - started).toBeLessThan(1000);
    expect(logs.text).toContain('key request not sent to the webhook: shutting down');
  });
});
