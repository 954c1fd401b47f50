/**
 * Nobitex source adapter: tether's sell rate in toman, polled from
 * `GET /market/stats?srcCurrency=usdt&dstCurrency=rls` (https://apidocs.nobitex.ir, «آمار بازار»).
 * `stats["usdt-rls"].bestSell` is the lowest sell order — what a buyer pays, the side nerkh
 * publishes — quoted in rial; `nobitex-stats.ts` validates it and converts it to toman.
 *
 * Nobitex allows 20 requests a minute on this endpoint, so polls are at least 3 s apart and never
 * overlap (the next one is scheduled when the previous has finished). A 429 waits as long as its
 * `Retry-After` says; 5xx answers, timeouts and network errors back off with jitter. Nothing
 * thrown escapes the poll timer.
 */
import type { Logger } from '../logger.ts';
import { fullJitterDelay, retryAfterMs } from './backoff.ts';
import { guardedListener } from './guarded-listener.ts';
import { parseTetherStats } from './nobitex-stats.ts';
import type { ConnectionState, Feed, FeedListener } from './types.ts';

export interface NobitexFeedOptions {
  /** Config `NERKH_NOBITEX_URL`, e.g. 'https://apiv2.nobitex.ir'. */
  baseUrl: string;
  /** Poll interval; raised to `minPollMs` when lower. */
  pollMs: number;
  listener: FeedListener;
  logger: Logger;
  /** Per request, default 5 000. */
  timeoutMs?: number;
  /** Floor of `pollMs`. Default 3 000 (20 requests/min); lower it only against a local simulator. */
  minPollMs?: number;
  /** Ceiling of the backoff after failures. Default 60 000. */
  backoffMaxMs?: number;
}

/** A Retry-After beyond an hour is more likely a broken header than a plan; cap the wait. */
const MAX_RETRY_AFTER_MS = 3_600_000;

export class NobitexFeed implements Feed {
  readonly source = 'nobitex' as const;
  private readonly url: string;
  private readonly host: string;
  private readonly pollMs: number;
  private readonly timeoutMs: number;
  private readonly backoffMaxMs: number;
  private readonly listener: FeedListener;
  private readonly logger: Logger;
  private readonly abort = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | null = null;
  private attempt = 0;
  private state: ConnectionState | null = null;
  private started = false;
  private stopped = false;
  private stopping: Promise<void> | null = null;

  constructor(options: NobitexFeedOptions) {
    if (!/^https?:\/\/\S+$/.test(options.baseUrl))
      throw new Error(`baseUrl must be http(s)://, got ${options.baseUrl}`);
    const base = options.baseUrl.replace(/\/+$/, '');
    this.url = `${base}/market/stats?srcCurrency=usdt&dstCurrency=rls`;
    this.host = new URL(base).host;
    this.pollMs = Math.max(options.pollMs, options.minPollMs ?? 3_000);
    this.timeoutMs = options.timeoutMs ?? 5_000;
    this.backoffMaxMs = Math.max(options.backoffMaxMs ?? 60_000, this.pollMs);
    this.listener = guardedListener(options.listener, options.logger, this.source);
    this.logger = options.logger;
  }

  start(): void {
    if (this.started) throw new Error('NobitexFeed already started');
    this.started = true;
    this.report('connecting', `polling ${this.host} every ${this.pollMs} ms`);
    this.schedule(0);
  }

  /** Idempotent: every call resolves once the timer and any request in flight are gone. */
  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  private async shutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.abort.abort();
    await this.inFlight;
    if (this.started) this.report('closed', 'stopped');
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.inFlight = this.poll().finally(() => {
        this.inFlight = null;
      });
    }, delayMs);
  }

  private async poll(): Promise<void> {
    let next: number;
    try {
      next = await this.pollOnce();
    } catch (error) {
      this.logger.error({ err: error, source: 'nobitex' }, 'nobitex: poll failed unexpectedly');
      next = this.failed('unexpected error');
    }
    if (!this.stopped) this.schedule(next);
  }

  /** One request; returns the delay before the next. */
  private async pollOnce(): Promise<number> {
    let response: Response;
    let text: string;
    try {
      response = await fetch(this.url, {
        signal: AbortSignal.any([this.abort.signal, AbortSignal.timeout(this.timeoutMs)]),
        headers: { accept: 'application/json', 'user-agent': 'nerkh (rates service)' },
      });
      text = await response.text();
    } catch (error) {
      if (this.stopped) return this.pollMs;
      const timedOut = error instanceof Error && error.name === 'TimeoutError';
      const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
      return this.failed(
        timedOut
          ? `no answer within ${this.timeoutMs} ms`
          : `request failed (${error instanceof Error ? error.message : String(error)}${cause})`,
      );
    }
    if (response.status === 429) {
      const asked = retryAfterMs(response.headers.get('retry-after'));
      const delay = Math.min(MAX_RETRY_AFTER_MS, Math.max(this.pollMs, asked ?? this.backoffDelay()));
      this.attempt += 1;
      this.report('backoff', `rate limited (HTTP 429); next request in ${delay} ms`);
      return delay;
    }
    if (!response.ok) return this.failed(`HTTP ${response.status}`);
    this.attempt = 0;
    this.report('open', `polling ${this.host} every ${this.pollMs} ms`);
    const result = parseTetherStats(text);
    if (result.kind === 'quote') {
      this.listener.quote({
        source: this.source,
        symbol: 'USDT',
        currency: 'toman',
        ask: result.toman,
        changePct: null,
        tickTime: Date.now(),
      });
    } else {
      this.logger.debug({ source: 'nobitex', reason: result.reason }, 'nobitex: rejected stats');
      this.listener.rejected('nobitex', result.reason);
    }
    return this.pollMs;
  }

  /** Never sooner than the poll interval, so retries also stay within Nobitex's rate limit. */
  private backoffDelay(): number {
    return this.pollMs + fullJitterDelay(this.attempt, this.pollMs, this.backoffMaxMs - this.pollMs);
  }

  private failed(why: string): number {
    const delay = this.backoffDelay();
    this.attempt += 1;
    this.report('backoff', `${why}; retrying in ${delay} ms`);
    return delay;
  }

  /** Every failure is reported (its detail says when the next try is); a steady state only once. */
  private report(state: ConnectionState, detail: string): void {
    if (state === this.state && state !== 'backoff') return;
    this.state = state;
    const log = state === 'backoff' ? this.logger.warn.bind(this.logger) : this.logger.info.bind(this.logger);
    log({ source: 'nobitex', state }, `nobitex ${state}: ${detail}`);
    this.listener.connectionState('nobitex', state, detail);
  }
}
