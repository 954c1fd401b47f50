/**
 * Wallex source adapter (docs/sources.md, "Wallex"): coins quoted in toman (`…TMN` markets) and
 * in tether (`…USDT` markets), polled from the public `GET /v1/markets`, which lists every market
 * with its ask in one document. `wallex-markets.ts` validates it; toman prices are published as
 * quoted. An API key, when the operator has one, goes in the `x-api-key` header (resolved by the
 * caller from the environment).
 *
 * `/v1/markets` is only in Wallex's older docs and has been seen taking tens of seconds from a
 * cold start: its timeout is the source's `timeout_seconds`, and when it does not answer (or is
 * gone: 404, 5xx) the feed reads each market's order book, `GET /v1/depth?symbol=…`, one request
 * at a time (`wallex-depth.ts`), and tries `/v1/markets` again five minutes later.
 */
import type { PollRequest } from './http-poll.ts';
import { checkPolledFeedOptions, PolledFeed, type PolledFeedOptions } from './polled-feed.ts';
import { parseWallexDepth } from './wallex-depth.ts';
import { parseWallexMarkets } from './wallex-markets.ts';

/** `markets[].market` is Wallex's symbol: `BTCTMN` for toman, `BTCUSDT` for tether. */
export interface WallexFeedOptions extends PolledFeedOptions {
  /** While reading the order books, how long before `/v1/markets` is tried again; default 300 000. */
  retryMarketsAfterMs?: number;
}

/** Wallex symbols: upper-case letters and digits, e.g. BTCTMN, 1INCHUSDT. */
const MARKET = /^[A-Z0-9]{2,30}$/;

function wallexRequests(options: WallexFeedOptions): PollRequest[] {
  checkPolledFeedOptions(options);
  for (const { market } of options.markets) {
    if (!MARKET.test(market)) {
      throw new Error(`${options.name}: market "${market}" must be an upper-case Wallex symbol like BTCTMN`);
    }
  }
  const markets = [...options.markets];
  return [
    {
      url: `${options.url.replace(/\/+$/, '')}/v1/markets`,
      parse: (text, receivedAt) => parseWallexMarkets(text, markets, receivedAt),
    },
  ];
}

/** One order-book request per market: the fallback when `/v1/markets` does not answer. */
function wallexDepthRequests(options: WallexFeedOptions): PollRequest[] {
  const base = options.url.replace(/\/+$/, '');
  return options.markets.map((market) => ({
    url: `${base}/v1/depth?symbol=${market.market}`,
    parse: (text: string, receivedAt: number) => parseWallexDepth(text, market, receivedAt),
  }));
}

export class WallexFeed extends PolledFeed {
  constructor(options: WallexFeedOptions) {
    // 3 s apart at the least, as for Nobitex: Wallex publishes no limit for these documents, and
    // its docs warn that asking for order books often meets a rate limit.
    super(options, wallexRequests(options), 3_000, {
      fallback: {
        requests: wallexDepthRequests(options),
        label: 'the order books',
        retryPrimaryAfterMs: options.retryMarketsAfterMs ?? 300_000,
      },
    });
  }
}
