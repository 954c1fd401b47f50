/**
 * Wallex source adapter (https://api-docs.wallex.ir): coins quoted in toman (`…TMN` markets) and
 * in tether (`…USDT` markets), polled from the public `GET /v1/markets`, which lists every market
 * in one document. `wallex-markets.ts` validates it; toman prices are published as quoted.
 * An API key, when the operator has one, goes in the `x-api-key` header (resolved by the caller
 * from the environment).
 */
import type { Logger } from '../logger.ts';
import { HttpPoller } from './http-poll.ts';
import type { Feed, FeedListener, MarketRequest } from './types.ts';
import { parseWallexMarkets } from './wallex-markets.ts';

export interface WallexFeedOptions {
  /** The configured source name, e.g. 'wallex'. */
  name: string;
  /** Base URL, e.g. 'https://api.wallex.ir'. */
  url: string;
  /** What to quote: `market` is Wallex's symbol, `BTCTMN` for toman or `BTCUSDT` for tether. */
  markets: readonly MarketRequest[];
  listener: FeedListener;
  logger: Logger;
  /** Poll interval; raised to `minPollMs` when lower. */
  pollMs: number;
  /** Per request, default 5 000. */
  timeoutMs?: number;
  /** Floor of `pollMs`. Default 3 000; lower it only against a local simulator. */
  minPollMs?: number;
  /** Ceiling of the backoff after failures. Default 60 000. */
  backoffMaxMs?: number;
  /** Request headers already resolved from the environment, e.g. `{ 'x-api-key': … }`. */
  headers?: Readonly<Record<string, string>>;
}

/** Wallex symbols: upper-case letters and digits, e.g. BTCTMN, 1INCHUSDT. */
const MARKET = /^[A-Z0-9]{2,30}$/;

export class WallexFeed implements Feed {
  readonly source: string;
  readonly #poller: HttpPoller;

  constructor(options: WallexFeedOptions) {
    if (!/^https?:\/\/\S+$/.test(options.url)) throw new Error(`url must be http(s)://, got ${options.url}`);
    if (options.markets.length === 0) throw new Error(`${options.name}: needs at least one market`);
    for (const { market } of options.markets) {
      if (!MARKET.test(market)) {
        throw new Error(
          `${options.name}: market "${market}" must be an upper-case Wallex symbol like BTCTMN`,
        );
      }
    }
    const markets = [...options.markets];
    this.source = options.name;
    this.#poller = new HttpPoller({
      source: options.name,
      requests: [
        {
          url: `${options.url.replace(/\/+$/, '')}/v1/markets`,
          parse: (text, receivedAt) => parseWallexMarkets(text, markets, receivedAt),
        },
      ],
      pollMs: options.pollMs,
      minPollMs: options.minPollMs ?? 3_000,
      timeoutMs: options.timeoutMs ?? 5_000,
      backoffMaxMs: options.backoffMaxMs ?? 60_000,
      headers: options.headers,
      listener: options.listener,
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
