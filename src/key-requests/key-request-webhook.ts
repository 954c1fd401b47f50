import { fullJitterDelay } from '../feeds/backoff.ts';
import type { Logger } from '../logger.ts';
import type { KeyRequest } from '../store/key-request.ts';

interface KeyRequestWebhookOptions {
  /** NERKH_REQUESTS_WEBHOOK_URL. It may carry a secret token: only its origin is ever logged. */
  url: string;
  logger: Logger;
  /** Attempts per request, the first included (default 8). */
  attempts?: number;
  /** Back-off base and ceiling between attempts (default 1 s and 60 s). */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** How long one attempt may take (default 10 s). */
  timeoutMs?: number;
}

/** What the webhook receives: who asked and when, never how to reach them (no email). */
export interface KeyRequestNotice {
  event: 'key_request';
  id: string;
  name: string;
  org: string;
  created_at: string;
  /** One line for chat webhooks (Slack, Mattermost and the like show `text`). */
  text: string;
}

export function noticeOf(request: KeyRequest): KeyRequestNotice {
  return {
    event: 'key_request',
    id: request.id,
    name: request.name,
    org: request.org,
    created_at: request.created_at,
    text: `New API key request ${request.id} from ${request.name} (${request.org}); review it with: nerkh requests list`,
  };
}

/**
 * POSTs each new key request to the operator's webhook (docs/operations.md#key-requests), in the
 * background: `send` returns at once, so the contact form's answer never waits on the receiver.
 * A failed attempt (no answer, a timeout, 408, 429 or a 5xx) is retried with exponential back-off
 * and full jitter (../feeds/backoff.ts), up to `attempts`; any other answer ends it. The request
 * stays in the store whatever happens, and the pending-requests gauge counts it.
 * Hand-written: a POST with retries is a few lines on Node's own fetch.
 */
export class KeyRequestWebhook {
  readonly #url: string;
  readonly #origin: string;
  readonly #logger: Logger;
  readonly #attempts: number;
  readonly #baseDelayMs: number;
  readonly #maxDelayMs: number;
  readonly #timeoutMs: number;
  /** Aborts attempts and waits in flight at close. */
  readonly #closing = new AbortController();
  readonly #deliveries = new Set<Promise<void>>();

  constructor(options: KeyRequestWebhookOptions) {
    this.#url = options.url;
    this.#origin = new URL(options.url).origin;
    this.#logger = options.logger;
    this.#attempts = options.attempts ?? 8;
    this.#baseDelayMs = options.baseDelayMs ?? 1000;
    this.#maxDelayMs = options.maxDelayMs ?? 60_000;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
  }

  /** Starts delivering `request` in the background; never throws. */
  send(request: KeyRequest): void {
    if (this.#closing.signal.aborted) return;
    const delivery = this.#deliver(noticeOf(request)).finally(() => this.#deliveries.delete(delivery));
    this.#deliveries.add(delivery);
  }

  /** Ends the deliveries under way (each is logged as abandoned); the requests stay in the store. */
  async close(): Promise<void> {
    this.#closing.abort();
    await Promise.all(this.#deliveries);
  }

  async #deliver(notice: KeyRequestNotice): Promise<void> {
    const body = JSON.stringify(notice);
    const log = { key_request_id: notice.id, webhook: this.#origin };
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.#post(body);
      if (outcome === 'delivered') {
        this.#logger.info({ ...log, attempts: attempt }, 'key request sent to the webhook');
        return;
      }
      if (this.#closing.signal.aborted) {
        this.#logger.warn(log, 'key request not sent to the webhook: shutting down; it stays in the store');
        return;
      }
      if (outcome.final || attempt >= this.#attempts) {
        this.#logger.error(
          { ...log, attempts: attempt, reason: outcome.reason },
          'key request not sent to the webhook; it stays in the store (nerkh requests list)',
        );
        return;
      }
      this.#logger.warn({ ...log, attempt, reason: outcome.reason }, 'webhook attempt failed; retrying');
      // Up to 1 s before the second attempt, then 2, 4, … up to a minute: about two minutes in all.
      await this.#wait(fullJitterDelay(attempt - 1, this.#baseDelayMs, this.#maxDelayMs));
    }
  }

  /** One attempt: delivered, or why not and whether another attempt could help. */
  async #post(body: string): Promise<'delivered' | { reason: string; final: boolean }> {
    try {
      const response = await fetch(this.#url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        redirect: 'error',
        signal: AbortSignal.any([this.#closing.signal, AbortSignal.timeout(this.#timeoutMs)]),
      });
      await response.body?.cancel();
      if (response.ok) return 'delivered';
      const retriable = response.status === 408 || response.status === 429 || response.status >= 500;
      return { reason: `HTTP ${response.status}`, final: !retriable };
    } catch (error) {
      return { reason: reasonOf(error), final: false };
    }
  }

  /** Waits `ms`, or less when closing. */
  #wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const signal = this.#closing.signal;
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done);
    });
  }
}

/** fetch's error and its cause (`fetch failed: ECONNREFUSED`, `fetch failed: bad port`); never the URL. */
function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
  if (typeof cause?.code === 'string') return `${error.message}: ${cause.code}`;
  if (typeof cause?.message === 'string') return `${error.message}: ${cause.message}`;
  return error.message;
}
