/**
 * Wallex source adapter (https://api-docs.wallex.ir): coins quoted in toman (`…TMN` markets) and
 * in tether (`…USDT` markets), polled from the public `GET /v1/markets`, which lists every market
 * in one document. `wallex-markets.ts` validates it; toman prices are published as quoted.
 * An API key, when the operator has one, goes in the `x-api-key` header (resolved by the caller
 * from the environment).
 */
import type { PollRequest } from './http-poll.ts';
import { checkPolledFeedOptions, PolledFeed, type PolledFeedOptions } from './polled-feed.ts';
import { parseWallexMarkets } from './wallex-markets.ts';

/** `markets[].market` is Wallex's symbol: `BTCTMN` for toman, `BTCUSDT` for tether. */
export type WallexFeedOptions = PolledFeedOptions;

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

export class WallexFeed extends PolledFeed {
  constructor(options: WallexFeedOptions) {
    // 3 s apart at the least, as for Nobitex: Wallex publishes no limit for this document.
    super(options, wallexRequests(options), 3_000);
  }
}
