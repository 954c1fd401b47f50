/**
 * A made-up exchange's own price document, for the `json-http` source kind: what an exchange's
 * panel might publish, in a shape no adapter knows. `GET /panel/prices` answers
 *
 *   {"data":{"markets":[
 *     {"pair":"USDT-TMN","sell":"105299","buy":"105250","change24h":0.12,"updated_at":"2026-03-01T10:00:00.000Z"},
 *     {"pair":"BTC-TMN","sell":"10240449000","buy":"10238400000","change24h":-1.25,"updated_at":"…"},
 *     {"pair":"BTC-USDT","sell":"97250.12","buy":"97230.67","change24h":-1.25,"updated_at":"…"},
 *     …]}}
 *
 * every simulated coin in TMN (toman, the same prices as Wallex's `…TMN` markets) and in USDT,
 * `sell` the ask and `buy` the bid as strings, `change24h` a number, `updated_at` the answer time
 * in ISO 8601. A sources file reads it with the mapping
 *
 *   { quotes: data.markets, key: pair, pair: { separator: "-", suffixes: { TMN: toman, USDT: usdt } }, ask: sell, change: change24h, time: updated_at }
 */
import type { SimulatorFault } from './faults.ts';
import { type HttpEndpoint, json, type UpstreamAnswer } from './http-endpoints.ts';
import type { TetherMarket } from './market.ts';
import { type ListedCoin, quoteIn, tetherInToman } from './quoted-markets.ts';
import { malformedBody, panelQuote } from './wire.ts';

export const PANEL_PATH = '/panel/prices';

export function panel(coins: readonly ListedCoin[], tether: TetherMarket): HttpEndpoint {
  /** Which corrupt body the `malformed` fault sends next. */
  let malformedVariant = 0;

  function quotes(fault: SimulatorFault): Record<string, unknown>[] {
    const now = Date.now();
    const entries = [panelQuote(tetherInToman(tether), 'TMN', now, fault)];
    for (const coin of coins) {
      entries.push(panelQuote(quoteIn(coin.symbol, coin.market, 'toman', tether), 'TMN', now, fault));
      entries.push(panelQuote(quoteIn(coin.symbol, coin.market, 'usdt', tether), 'USDT', now, fault));
    }
    return entries;
  }

  function answer(_params: URLSearchParams, fault: SimulatorFault): UpstreamAnswer {
    if (fault === 'malformed') {
      const entries = quotes('none');
      const body = malformedBody(
        (withoutAsk) => ({ data: { markets: entries.map(withoutAsk) } }),
        'sell',
        malformedVariant++,
      );
      return { status: 200, body };
    }
    return json(200, { data: { markets: quotes(fault) } });
  }

  return {
    exchange: 'panel',
    path: PANEL_PATH,
    answer,
    rateLimited: (headers) => json(429, { error: 'too many requests' }, headers),
    unavailable: () => json(503, { error: 'service unavailable' }),
    geoBlocked: () => json(451, { error: 'not available in your region' }),
  };
}
