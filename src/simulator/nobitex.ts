/**
 * Nobitex `GET /market/stats` (https://apidocs.nobitex.ir, «آمار بازار»): the usdt-rls market,
 * prices in rial, with Nobitex's error bodies.
 */
import type { SimulatorFault } from './faults.ts';
import { type HttpEndpoint, json, type UpstreamAnswer } from './http-endpoints.ts';
import type { TetherMarket } from './market.ts';
import { malformedStatsBody, tetherStats } from './wire.ts';

const TETHER_MARKET = 'usdt-rls';

/** The market stats of `tether`, the usdt-rls book. */
export function nobitex(tether: TetherMarket): HttpEndpoint {
  /** Which corrupt body the `malformed` fault sends next. */
  let malformedVariant = 0;

  /** `srcCurrency`/`dstCurrency` are optional comma lists; absent means every market. */
  function stats(params: URLSearchParams, fault: SimulatorFault): UpstreamAnswer {
    if (fault === 'malformed') {
      return { status: 200, body: malformedStatsBody(tether, malformedVariant++) };
    }
    const wanted = (name: string, value: string) => {
      const list = params.get(name);
      return list === null || list.split(',').some((item) => item.trim().toLowerCase() === value);
    };
    const markets: Record<string, unknown> = {};
    if (wanted('srcCurrency', 'usdt') && wanted('dstCurrency', 'rls')) {
      markets[TETHER_MARKET] = tetherStats(tether, fault);
    }
    return json(200, { status: 'ok', stats: markets });
  }

  return {
    exchange: 'nobitex',
    path: '/market/stats',
    answer: stats,
    rateLimited: (headers) =>
      json(429, { status: 'failed', code: 'TooManyRequests', message: 'Too many requests' }, headers),
    unavailable: () => json(503, { status: 'failed', message: 'Service Unavailable' }),
  };
}
