/**
 * Nobitex source adapter (https://apidocs.nobitex.ir, «آمار بازار»): coins quoted in tether and
 * in rial, polled from `GET /market/stats?srcCurrency=btc,eth,…&dstCurrency=usdt|rls`; tether's
 * own toman price is the market `usdt` in rial. `nobitex-stats.ts` validates the body and turns
 * rial into toman.
 *
 * The documentation gives `srcCurrency` as a comma list (`btc,usdt`) and `dstCurrency` as one
 * currency (`rls`), so each round makes one request per destination currency it needs. The
 * endpoint allows 20 requests a minute, so requests are at least 3 s apart by default: a round of
 * two requests runs at most every 6 s (`http-poll.ts`).
 */
import type { PollRequest } from './http-poll.ts';
import { type NobitexDst, nobitexDst, parseNobitexStats } from './nobitex-stats.ts';
import { checkPolledFeedOptions, PolledFeed, type PolledFeedOptions } from './polled-feed.ts';
import type { MarketRequest } from './types.ts';

/**
 * `markets[].market` is Nobitex's lower-case source currency ('btc', 'usdt'); currency 'usdt' reads
 * the `…-usdt` market, 'toman' the `…-rls` market ÷ 10. `minPollMs` defaults to 3 000 per request
 * (20 requests/min).
 */
export type NobitexFeedOptions = PolledFeedOptions;

/** Nobitex currency codes: lower-case letters and digits, and `_` as in `100k_floki`. */
const CURRENCY = /^[a-z0-9_]{1,30}$/;

function nobitexRequests(options: NobitexFeedOptions): PollRequest[] {
  checkPolledFeedOptions(options);
  const base = options.url.replace(/\/+$/, '');
  const byDst = new Map<NobitexDst, MarketRequest[]>();
  for (const request of options.markets) {
    if (!CURRENCY.test(request.market)) {
      throw new Error(
        `${options.name}: market "${request.market}" must be a lower-case Nobitex currency like btc`,
      );
    }
    const dst = nobitexDst(request.currency);
    byDst.set(dst, [...(byDst.get(dst) ?? []), request]);
  }
  // Rial first: tether's toman price, the factor of every derived toman price, comes soonest.
  return (['rls', 'usdt'] as const).flatMap((dst) => {
    const markets = byDst.get(dst);
    if (!markets) return [];
    const src = [...new Set(markets.map((request) => request.market))].join(',');
    return [
      {
        url: `${base}/market/stats?srcCurrency=${src}&dstCurrency=${dst}`,
        parse: (text: string, receivedAt: number) => parseNobitexStats(text, markets, dst, receivedAt),
      },
    ];
  });
}

export class NobitexFeed extends PolledFeed {
  constructor(options: NobitexFeedOptions) {
    super(options, nobitexRequests(options), 3_000);
  }
}
