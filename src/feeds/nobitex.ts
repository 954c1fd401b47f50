/**
 * Nobitex source adapter (docs/sources.md, "Nobitex"): coins quoted in tether and in rial, polled
 * from `GET /market/stats?dstCurrency=rls,usdt` (every market Nobitex lists); tether's toman price is
 * the market `usdt` in rial. `nobitex-stats.ts` validates the body and turns rial into toman.
 *
 * - Every market comes in one request: without `srcCurrency` Nobitex answers each `src-dst` market
 *   it lists in the `dstCurrency` list, so a round costs one of the 20 requests a minute `/market/stats` allows, and requests
 *   are at least 3 s apart by default (`http-poll.ts`).
 * - Every request says `User-Agent: TraderBot/<name>`, the form Nobitex asks bots to send.
 * - A 429 carries its wait in the body (`backOff`, seconds) and no `Retry-After`: the poller waits
 *   that long; a wait of a minute or more is a ban, reported as a refusal.
 */
import type { PollRequest } from './http-poll.ts';
import { nobitexBackOffMs, nobitexDst, parseNobitexStats } from './nobitex-stats.ts';
import { checkPolledFeedOptions, PolledFeed, type PolledFeedOptions } from './polled-feed.ts';

/**
 * `markets[].market` is Nobitex's lower-case source currency ('btc', 'usdt'); currency 'usdt' reads
 * the `…-usdt` market, 'toman' the `…-rls` market ÷ 10. `minPollMs` defaults to 3 000 per request
 * (20 requests/min).
 */
export interface NobitexFeedOptions extends PolledFeedOptions {
  /** The `<name>` of `User-Agent: TraderBot/<name>`; default `nerkh`. */
  botName?: string;
}

/** Nobitex currency codes: lower-case letters and digits, and `_` as in `100k_floki`. */
const CURRENCY = /^[a-z0-9_]{1,30}$/;
/** What may follow `TraderBot/`: an HTTP token (RFC 9110 §5.6.2) without `/`. */
const BOT_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/;

/** Nobitex's own figure: `/market/stats` allows 20 requests a minute. */
export const NOBITEX_MIN_POLL_MS = 3_000;

function nobitexRequests(options: NobitexFeedOptions): PollRequest[] {
  checkPolledFeedOptions(options);
  for (const request of options.markets) {
    if (!CURRENCY.test(request.market)) {
      throw new Error(
        `${options.name}: market "${request.market}" must be a lower-case Nobitex currency like btc`,
      );
    }
  }
  const base = options.url.replace(/\/+$/, '');
  // Rial first: tether's toman price, the factor of every derived toman price.
  const dst = (['rls', 'usdt'] as const)
    .filter((wanted) => options.markets.some((request) => nobitexDst(request.currency) === wanted))
    .join(',');
  const markets = [...options.markets];
  return [
    {
      // No srcCurrency: Nobitex answers every market it lists ("absent means every market"), so a
      // code it does not list can never fail the request for every other coin; such a market is
      // simply missing from the answer (docs/sources.md, "Nobitex").
      url: `${base}/market/stats?dstCurrency=${dst}`,
      parse: (text: string, receivedAt: number) => parseNobitexStats(text, markets, receivedAt),
    },
  ];
}

export function nobitexUserAgent(botName = 'nerkh'): string {
  if (!BOT_NAME.test(botName)) throw new Error(`bot name "${botName}" must be an HTTP token without "/"`);
  return `TraderBot/${botName}`;
}

export class NobitexFeed extends PolledFeed {
  constructor(options: NobitexFeedOptions) {
    super(options, nobitexRequests(options), NOBITEX_MIN_POLL_MS, {
      userAgent: nobitexUserAgent(options.botName),
      bodyBackOffMs: nobitexBackOffMs,
    });
  }
}
