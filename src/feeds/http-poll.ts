/**
 * The poll loop every polled source kind shares (nobitex, wallex, json-http): one or more GET
 * requests per round, rounds never overlapping (the next is scheduled when the previous has
 * finished) and never closer than the exchange's rate limit allows.
 *
 * - A 429 waits as long as its `Retry-After` says (RFC 9110 §10.2.3), or as its body says for an
 *   exchange that writes the wait there (Nobitex's `backOff`, docs/sources.md), whichever is
 *   longer. A 418 (Binance's ban for clients that ignored 429s) or a wait of a minute or more is a
 *   ban: the state is 'refused', so coins fail over at once, and nothing is asked until it ends.
 * - 5xx answers, timeouts and network errors back off with full jitter.
 * - 451 or 403 mean the source refuses us (a geo-block, a banned address): the state becomes
 *   'refused' at once, so coins it serves fail over without waiting to go stale. Three 5xx or
 *   unreadable bodies in a row count as a refusal too. The loop keeps trying, backing off, and
 *   the state returns to 'open' with the next good body.
 * - A kind may name fallback requests (Wallex's order books, docs/sources.md, "Wallex"): when a
 *   request fails without refusing us (no answer in time, a network error, 404, 5xx), the poller
 *   reads the fallbacks instead, one request every `minPollMs` at the least, in turn, and tries the
 *   first requests again after `fallbackMs`. A refusal or a rate limit never switches: asking
 *   another endpoint of the same exchange would not be honouring it.
 * - Nothing thrown escapes the poll timer; a listener that throws is logged by `guardedListener`.
 */
import type { Logger } from '../logger.ts';
import { fullJitterDelay, retryAfterMs } from './backoff.ts';
import type { BodyResult } from './body-result.ts';
import { guardedListener } from './guarded-listener.ts';
import { httpErrorDetail, isRefusal } from './refusal.ts';
import type { ConnectionState, FeedListener, SourceName } from './types.ts';

/** One request of a round: where, and how its body becomes quotes. */
export interface PollRequest {
  url: string;
  /** Pure: the body text and the time it arrived (epoch ms) → quotes and rejections. */
  parse(text: string, receivedAt: number): BodyResult;
}

/** How a kind's exchange wants to be asked, beyond plain HTTP. */
export interface RateLimitReading {
  /** Sent as `User-Agent`; default `nerkh (rates service)`. */
  userAgent?: string;
  /** Milliseconds a 429 (or 418) body asks to wait, for exchanges that say it there; null when it does not. */
  bodyBackOffMs?: (text: string) => number | null;
}

/** What a poller reads while its requests fail, and how long before it tries them again. */
export interface PollFallback {
  /** Read one at a time, in turn. */
  requests: readonly PollRequest[];
  /** What they read, for the state detail: `the order books`. */
  label: string;
  /** Default 300 000 (5 min). */
  retryPrimaryAfterMs?: number;
}

/** A request that went wrong: how to report it, and whether the fallbacks may stand in. */
interface Failure {
  /** Reports the failure; the delay before the next round. */
  settle(): number;
  /** A slow or missing endpoint (not a refusal, not a rate limit). */
  canFallBack: boolean;
  why: string;
}

export interface HttpPollOptions extends RateLimitReading {
  /** The configured source name: quotes, rejections and states are reported under it. */
  source: SourceName;
  /** Made one after the other, in this order, every round. */
  requests: readonly PollRequest[];
  /** Round interval; raised to `minPollMs × requests.length` when lower. */
  pollMs: number;
  /** Floor of the interval per request (the exchange's rate limit). */
  minPollMs: number;
  /** Per request. */
  timeoutMs: number;
  /** Ceiling of the backoff after failures. */
  backoffMaxMs: number;
  /** Sent with every request, e.g. an API key header already resolved from the environment. */
  headers?: Readonly<Record<string, string>>;
  /**
   * Spread the requests over the round: one request every `pollMs / requests.length`, in turn,
   * instead of all of them back to back (one URL per market, docs/sources.md#the-json-http-mapping).
   */
  spread?: boolean;
  /** Read instead of `requests` while they fail. */
  fallback?: PollFallback;
  listener: FeedListener;
  logger: Logger;
}

/** A Retry-After beyond an hour is more likely a broken header than a plan; cap the wait. */
const MAX_RETRY_AFTER_MS = 3_600_000;
/** A rate limit asking this long a wait or longer is a ban: coins fail over rather than wait. */
const BAN_MS = 60_000;
/** This many 5xx answers or unreadable bodies in a row and the source counts as refusing us. */
const REFUSED_AFTER = 3;

export class HttpPoller {
  readonly #options: HttpPollOptions;
  readonly #listener: FeedListener;
  readonly #host: string;
  readonly #pollMs: number;
  readonly #backoffMaxMs: number;
  readonly #abort = new AbortController();
  #timer: NodeJS.Timeout | undefined;
  #inFlight: Promise<void> | null = null;
  #attempt = 0;
  /** 5xx answers and unreadable bodies since the last good body. */
  #failuresInARow = 0;
  #state: ConnectionState | null = null;
  #started = false;
  #stopped = false;
  /** Epoch ms until which rounds read the fallbacks; 0: the requests themselves. */
  #fallbackUntil = 0;
  /** Why the fallbacks are being read. */
  #fallbackWhy = '';
  #fallbackNext = 0;
  /** With `spread`: the request whose turn is next. */
  #turn = 0;
  #stopping: Promise<void> | null = null;

  constructor(options: HttpPollOptions) {
    if (options.requests.length === 0) throw new Error(`${options.source}: nothing to poll`);
    for (const { url } of options.requests) {
      if (!/^https?:\/\/\S+$/.test(url))
        throw new Error(`${options.source}: url must be http(s)://, got ${url}`);
    }
    this.#options = options;
    this.#listener = guardedListener(options.listener, options.logger, options.source);
    this.#host = new URL(options.requests[0]?.url as string).host;
    this.#pollMs = Math.max(options.pollMs, options.minPollMs * options.requests.length);
    this.#backoffMaxMs = Math.max(options.backoffMaxMs, this.#pollMs);
  }

  start(): void {
    if (this.#started) throw new Error(`${this.#options.source}: already started`);
    this.#started = true;
    this.#report('connecting', this.#pollingDetail());
    this.#schedule(0);
  }

  /** Idempotent: every call resolves once the timer and any request in flight are gone. */
  stop(): Promise<void> {
    this.#stopping ??= this.#shutdown();
    return this.#stopping;
  }

  async #shutdown(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#abort.abort();
    await this.#inFlight;
    if (this.#started) this.#report('closed', 'stopped');
  }

  #pollingDetail(): string {
    const fallback = this.#options.fallback;
    if (fallback && this.#onFallback()) {
      return `polling ${this.#host}, ${fallback.label} one every ${this.#fallbackPollMs()} ms (${this.#fallbackWhy})`;
    }
    const { requests, spread } = this.#options;
    if (spread) {
      return `polling ${this.#host}: ${requests.length} documents, one every ${Math.round(this.#pollMs / requests.length)} ms`;
    }
    return `polling ${this.#host} every ${this.#pollMs} ms`;
  }

  #onFallback(): boolean {
    return this.#fallbackUntil > 0;
  }

  /** One fallback request per this long: each is read once per round interval, never faster than the floor. */
  #fallbackPollMs(): number {
    const count = this.#options.fallback?.requests.length ?? 1;
    return Math.max(this.#options.minPollMs, Math.floor(this.#pollMs / count));
  }

  #schedule(delayMs: number): void {
    this.#timer = setTimeout(() => {
      this.#inFlight = this.#round().finally(() => {
        this.#inFlight = null;
      });
    }, delayMs);
  }

  async #round(): Promise<void> {
    const { requests, spread } = this.#options;
    let next = spread ? this.#pollMs / requests.length : this.#pollMs;
    try {
      if (this.#onFallback() && Date.now() < this.#fallbackUntil) {
        next = await this.#fallbackRound();
      } else {
        let answered = true;
        const round = spread ? [requests[this.#turn++ % requests.length] as PollRequest] : requests;
        for (const request of round) {
          const failure = await this.#pollOnce(request);
          if (failure === null) continue;
          answered = false;
          next =
            failure.canFallBack && this.#options.fallback ? await this.#fallBack(failure) : failure.settle();
          break;
        }
        if (answered && this.#onFallback()) this.#backFromFallback();
      }
    } catch (error) {
      this.#options.logger.error(
        { err: error, source: this.#options.source },
        `${this.#options.source}: poll failed unexpectedly`,
      );
      next = this.#failed('backoff', 'unexpected error');
    }
    if (!this.#stopped) this.#schedule(next);
  }

  /** The requests failed: read the fallbacks until `retryPrimaryAfterMs` has passed. */
  async #fallBack(failure: Failure): Promise<number> {
    const fallback = this.#options.fallback as PollFallback;
    const first = !this.#onFallback();
    this.#fallbackUntil = Date.now() + (fallback.retryPrimaryAfterMs ?? 300_000);
    this.#fallbackWhy = failure.why;
    if (first) {
      this.#options.logger.warn(
        { source: this.#options.source, why: failure.why },
        `${this.#options.source}: reading ${fallback.label} instead (${failure.why})`,
      );
      // The detail changes while the state may stay 'open': report it once more.
      this.#state = null;
    }
    return this.#fallbackRound();
  }

  /** One fallback request, the next in turn. */
  async #fallbackRound(): Promise<number> {
    const requests = this.#options.fallback?.requests ?? [];
    const request = requests[this.#fallbackNext % requests.length] as PollRequest;
    this.#fallbackNext += 1;
    const failure = await this.#pollOnce(request);
    return failure === null ? this.#fallbackPollMs() : failure.settle();
  }

  /** The requests answered again: the fallbacks are no longer read. */
  #backFromFallback(): void {
    this.#fallbackUntil = 0;
    this.#fallbackWhy = '';
    this.#options.logger.info(
      { source: this.#options.source },
      `${this.#options.source}: its requests answer again; no longer reading ${this.#options.fallback?.label}`,
    );
    this.#state = null;
    this.#report('open', this.#pollingDetail());
  }

  /** One request: null when it went well, else what went wrong. */
  async #pollOnce(request: PollRequest): Promise<Failure | null> {
    const { timeoutMs, headers } = this.#options;
    let response: Response;
    let text: string;
    try {
      response = await fetch(request.url, {
        signal: AbortSignal.any([this.#abort.signal, AbortSignal.timeout(timeoutMs)]),
        headers: {
          accept: 'application/json',
          'user-agent': this.#options.userAgent ?? 'nerkh (rates service)',
          ...headers,
        },
      });
      text = await response.text();
    } catch (error) {
      if (this.#stopped) return { settle: () => this.#pollMs, canFallBack: false, why: 'stopped' };
      const timedOut = error instanceof Error && error.name === 'TimeoutError';
      const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
      const why = timedOut
        ? `no answer within ${timeoutMs} ms`
        : `request failed (${error instanceof Error ? error.message : String(error)}${cause})`;
      return this.#failure(() => this.#failed('backoff', why), true, why);
    }
    const receivedAt = Date.now();
    const { status } = response;
    if (status === 429 || status === 418) {
      return this.#failure(() => this.#rateLimited(status, response.headers, text), false, `HTTP ${status}`);
    }
    if (isRefusal(status)) {
      const why = httpErrorDetail(status, text);
      return this.#failure(() => this.#failed('refused', why), false, why);
    }
    if ((status === 404 || status === 400) && this.#options.spread) {
      // One URL per market: a market the exchange does not list (404, or Tabdeal's 400 "Invalid
      // symbol.") is that market missing, the source is not down.
      this.#reject('market-missing');
      return null;
    }
    if (status >= 500)
      return this.#failure(() => this.#failedInARow(`HTTP ${status}`), true, `HTTP ${status}`);
    if (!response.ok)
      return this.#failure(() => this.#failed('backoff', `HTTP ${status}`), true, `HTTP ${status}`);
    const result = request.parse(text, receivedAt);
    if (result.kind === 'unreadable') {
      this.#reject(result.reason);
      // One bad body is rejected and the round goes on; only a run of them is a refusal.
      if (this.#failuresInARow + 1 < REFUSED_AFTER) {
        this.#failuresInARow += 1;
        return null;
      }
      const why = `unreadable body (${result.reason})`;
      return this.#failure(() => this.#failedInARow(why), true, why);
    }
    this.#attempt = 0;
    this.#failuresInARow = 0;
    this.#report('open', this.#pollingDetail());
    for (const reason of result.rejected) this.#reject(reason);
    for (const quote of result.quotes) this.#listener.quote({ ...quote, source: this.#options.source });
    return null;
  }

  #failure(settle: () => number, canFallBack: boolean, why: string): Failure {
    return { settle, canFallBack, why };
  }

  /**
   * A 429 or 418: the wait is the longest of `Retry-After`, the body's own figure and the poll
   * interval; without either figure, the usual backoff.
   */
  #rateLimited(status: number, headers: Headers, text: string): number {
    const fromHeader = retryAfterMs(headers.get('retry-after'));
    const fromBody = this.#options.bodyBackOffMs?.(text) ?? null;
    const asked = fromHeader === null && fromBody === null ? null : Math.max(fromHeader ?? 0, fromBody ?? 0);
    const delay = Math.min(MAX_RETRY_AFTER_MS, Math.max(this.#pollMs, asked ?? this.#backoffDelay()));
    this.#attempt += 1;
    const said =
      fromBody !== null && fromBody >= (fromHeader ?? 0) ? `, back-off ${fromBody / 1000} s in the body` : '';
    if (status === 418 || (asked ?? 0) >= BAN_MS) {
      this.#report('refused', `banned (HTTP ${status}${said}); next request in ${delay} ms`);
    } else {
      this.#report('backoff', `rate limited (HTTP ${status}${said}); next request in ${delay} ms`);
    }
    return delay;
  }

  #reject(reason: string): void {
    this.#options.logger.debug(
      { source: this.#options.source, reason },
      `${this.#options.source}: rejected data`,
    );
    this.#listener.rejected(this.#options.source, reason);
  }

  /** A 5xx or an unreadable body: a backoff, or a refusal when it is the third in a row. */
  #failedInARow(why: string): number {
    this.#failuresInARow += 1;
    if (this.#failuresInARow >= REFUSED_AFTER) {
      return this.#failed('refused', `${why}, ${this.#failuresInARow} times in a row`);
    }
    return this.#failed('backoff', why);
  }

  /** Never sooner than the poll interval, so retries also stay within the rate limit. */
  #backoffDelay(): number {
    return this.#pollMs + fullJitterDelay(this.#attempt, this.#pollMs, this.#backoffMaxMs - this.#pollMs);
  }

  #failed(state: 'backoff' | 'refused', why: string): number {
    const delay = this.#backoffDelay();
    this.#attempt += 1;
    this.#report(state, `${why}; retrying in ${delay} ms`);
    return delay;
  }

  /** Every failure is reported (its detail says when the next try is); a steady state only once. */
  #report(state: ConnectionState, detail: string): void {
    if (state === this.#state && state !== 'backoff' && state !== 'refused') return;
    this.#state = state;
    const { logger, source } = this.#options;
    const log =
      state === 'backoff' || state === 'refused' ? logger.warn.bind(logger) : logger.info.bind(logger);
    log({ source, state }, `${source} ${state}: ${detail}`);
    this.#listener.connectionState(source, state, detail);
  }
}
