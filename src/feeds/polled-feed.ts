/**
 * What the polled source kinds (nobitex, wallex, json-http) have in common: their options, and a
 * Feed that runs their requests through the shared poll loop (`http-poll.ts`). A kind only says
 * which requests a round makes and how each body becomes quotes.
 */
import type { Logger } from '../logger.ts';
import { HttpPoller, type PollFallback, type PollRequest, type RateLimitReading } from './http-poll.ts';
import { perCoinListener } from './per-coin-listener.ts';
import type { Feed, FeedListener, MarketRequest } from './types.ts';

export interface PolledFeedOptions {
  /** The configured source name, e.g. 'wallex'. */
  name: string;
  /** The source's base URL (json-http: the document's full URL). */
  url: string;
  /** What to quote, each under the source's own market code. */
  markets: readonly MarketRequest[];
  listener: FeedListener;
  logger: Logger;
  /** Round interval; raised to `minPollMs` per request when lower. */
  pollMs: number;
  /** Per request, default 5 000. */
  timeoutMs?: number;
  /** Floor of the interval per request; the kind's default keeps to the exchange's rate limit. */
  minPollMs?: number;
  /** Ceiling of the backoff after failures. Default 60 000. */
  backoffMaxMs?: number;
  /** Request headers already resolved from the environment, e.g. `{ 'x-api-key': … }`. */
  headers?: Readonly<Record<string, string>>;
}

const HTTP_URL = /^https?:\/\/\S+$/;

/** Throws when the options cannot make a feed at all: a URL that is not http(s), or nothing to quote. */
export function checkPolledFeedOptions(options: PolledFeedOptions): void {
  if (!HTTP_URL.test(options.url)) throw new Error(`url must be http(s)://, got ${options.url}`);
  if (options.markets.length === 0) throw new Error(`${options.name}: needs at least one market`);
}

/** A source read by polling HTTP documents: the kind gives the requests of a round. */
export class PolledFeed implements Feed {
  readonly source: string;
  readonly #poller: HttpPoller;

  constructor(
    options: PolledFeedOptions,
    requests: readonly PollRequest[],
    defaultMinPollMs: number,
    /**
     * What the kind's exchange asks of clients beyond HTTP (its User-Agent, its rate-limit body),
     * `spread`: the requests take turns, one every `pollMs / requests.length`, instead of
     * running back to back each round (one URL per market: the exchange sees an even rate), and
     * `fallback`: what to read while the requests fail.
     */
    { spread = false, ...reading }: RateLimitReading & { spread?: boolean; fallback?: PollFallback } = {},
  ) {
    this.source = options.name;
    this.#poller = new HttpPoller({
      source: options.name,
      requests,
      spread,
      pollMs: options.pollMs,
      minPollMs: options.minPollMs ?? defaultMinPollMs,
      timeoutMs: options.timeoutMs ?? 5_000,
      backoffMaxMs: options.backoffMaxMs ?? 60_000,
      headers: options.headers,
      ...reading,
      // Prices per one coin, whatever bundle a market quotes (docs/sources.md#the-unit-of-a-market).
      listener: perCoinListener(options.listener, options.markets),
      logger: options.logger,
    });
  }

  start(): void {
    this.#poller.start();
  }

  stop(): Promise<void> {
    return this.#poller.stop();
  }
}
