/**
 * Nobitex `GET /market/stats` (https://apidocs.nobitex.ir, «آمار بازار»): every simulated coin in
 * its rial (`btc-rls`) and tether (`btc-usdt`) market, and tether's own `usdt-rls` book, with
 * Nobitex's error bodies. `srcCurrency` and `dstCurrency` are optional comma lists; absent means
 * every market. Rial prices are the coins' toman prices × 10 (`quoted-markets.ts`).
 */
import type { SimulatorFault } from './faults.ts';
import { type HttpEndpoint, json, type UpstreamAnswer } from './http-endpoints.ts';
import type { TetherMarket } from './market.ts';
import { type ListedCoin, quoteIn } from './quoted-markets.ts';
import { coinStats, malformedBody, tetherStats } from './wire.ts';

type Stats = Record<string, Record<string, unknown>>;

/** The market stats of `coins` and of `tether`, the usdt-rls book. */
export function nobitex(coins: readonly ListedCoin[], tether: TetherMarket): HttpEndpoint {
  /** Which corrupt body the `malformed` fault sends next. */
  let malformedVariant = 0;

  function markets(params: URLSearchParams, fault: SimulatorFault): Stats {
    const wanted = (name: string, value: string) => {
      const list = params.get(name);
      return list === null || list.split(',').some((item) => item.trim().toLowerCase() === value);
    };
    const stats: Stats = {};
    if (wanted('srcCurrency', 'usdt') && wanted('dstCurrency', 'rls')) {
      stats['usdt-rls'] = tetherStats(tether, fault);
    }
    for (const coin of coins) {
      const src = coin.symbol.toLowerCase();
      if (!wanted('srcCurrency', src)) continue;
      if (wanted('dstCurrency', 'rls')) {
        stats[`${src}-rls`] = coinStats(quoteIn(coin.symbol, coin.market, 'rial', tether), fault);
      }
      if (wanted('dstCurrency', 'usdt')) {
        stats[`${src}-usdt`] = coinStats(quoteIn(coin.symbol, coin.market, 'usdt', tether), fault);
      }
    }
    return stats;
  }

  function answer(params: URLSearchParams, fault: SimulatorFault): UpstreamAnswer {
    if (fault === 'malformed') {
      const stats = markets(params, 'none');
      const body = malformedBody(
        (withoutAsk) => ({
          status: 'ok',
          stats: Object.fromEntries(Object.entries(stats).map(([key, entry]) => [key, withoutAsk(entry)])),
        }),
        'bestSell',
        malformedVariant++,
      );
      return { status: 200, body };
    }
    return json(200, { status: 'ok', stats: markets(params, fault) });
  }

  return {
    exchange: 'nobitex',
    path: '/market/stats',
    answer,
    rateLimited: (headers) =>
      json(429, { status: 'failed', code: 'TooManyRequests', message: 'Too many requests' }, headers),
    unavailable: () => json(503, { status: 'failed', message: 'Service Unavailable' }),
    geoBlocked: () =>
      json(451, {
        status: 'failed',
        code: 'UnavailableForLegalReasons',
        message: 'Unavailable for legal reasons',
      }),
  };
}
