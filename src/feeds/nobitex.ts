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
import type { Logger } from '../logger.ts';
import { HttpPoller, type PollRequest } from './http-poll.ts';
import { type NobitexDst, nobitexDst, parseNobitexStats } from './nobitex-stats.ts';
import type { Feed, FeedListener, MarketRequest } from './types.ts';

export interface NobitexFeedOptions {
  /** The configured source name, e.g. 'nobitex'. */
  name: string;
  /** Base URL, e.g. 'https://apiv2.nobitex.ir' (config `NERKH_NOBITEX_URL`). */
  url: string;
  /**
   * What to quote: `market` is Nobitex's lower-case source currency ('btc', 'usdt'); currency
   * 'usdt' reads the `…-usdt` market, 'toman' the `…-rls` market ÷ 10.
   */
  markets: readonly MarketRequest[];
  listener: FeedListener;
  logger: Logger;
  /** Round interval; raised to `minPollMs` per request when lower. */
  pollMs: number;
  /** Per request, default 5 000. */
  timeoutMs?: number;
  /** Floor per request. Default 3 000 (20 requests/min); lower it only against a local simulator. */
  minPollMs?: number;
  /** Ceiling of the backoff after failures. Default 60 000. */
  backoffMaxMs?: number;
  /** Extra request headers, already resolved from the environment. */
  headers?: Readonly<Record<string, string>>;
}

/** Nobitex currency codes: lower-case letters and digits, and `_` as in `100k_floki`. */
const CURRENCY = /^[a-z0-9_]{1,30}$/;

export class NobitexFeed implements Feed {
  readonly source: string;
  readonly #poller: HttpPoller;

  constructor(options: NobitexFeedOptions) {
    if (!/^https?:\/\/\S+$/.test(options.url)) throw new Error(`url must be http(s)://, got ${options.url}`);
    if (options.markets.length === 0) throw new Error(`${options.name}: needs at least one market`);
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
    const requests: PollRequest[] = (['rls', 'usdt'] as const).flatMap((dst) => {
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
    this.source = options.name;
    this.#poller = new HttpPoller({
      source: options.name,
      requests,
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
