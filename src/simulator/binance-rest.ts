/**
 * Binance REST `GET /api/v3/ticker/24hr` (`symbol=` or `symbols=[…]`, none for every pair)
 * (https://developers.binance.com/docs/binance-spot-api-docs/rest-api/market-data-endpoints),
 * with `symbolStatus` and Binance's error codes for bad parameters.
 */
import type { SimulatorFault } from './faults.ts';
import { type HttpEndpoint, json, type UpstreamAnswer } from './http-endpoints.ts';
import type { PairMarket } from './market.ts';
import { BINANCE_GEO_BLOCK, restTicker } from './wire.ts';

function tickers(
  markets: ReadonlyMap<string, PairMarket>,
  params: URLSearchParams,
  fault: SimulatorFault,
): UpstreamAnswer {
  const now = Date.now();
  const symbol = params.get('symbol');
  const symbols = params.get('symbols');
  if (symbol !== null && symbols !== null) {
    return json(400, { code: -1128, msg: 'Combination of optional parameters invalid.' });
  }
  // Every simulated market is trading: `symbolStatus=TRADING` keeps them all, HALT or BREAK none.
  const status = params.get('symbolStatus');
  if (status !== null && !['TRADING', 'HALT', 'BREAK'].includes(status)) {
    return json(400, { code: -1100, msg: "Illegal characters found in parameter 'symbolStatus'." });
  }
  const trading = status === null || status === 'TRADING';
  let selected: PairMarket[];
  let single = false;
  if (symbol !== null) {
    const market = markets.get(symbol);
    if (!market) return json(400, { code: -1121, msg: 'Invalid symbol.' });
    if (!trading)
      return json(400, {
        code: -1220,
        msg: "The symbol's status does not match the requested symbolStatus.",
      });
    selected = [market];
    single = true;
  } else if (symbols !== null) {
    let names: unknown;
    try {
      names = JSON.parse(symbols);
    } catch {
      names = null;
    }
    if (
      !Array.isArray(names) ||
      !names.every((n) => typeof n === 'string' && /^[A-Z0-9\-_.]{1,20}$/.test(n))
    ) {
      return json(400, { code: -1100, msg: "Illegal characters found in parameter 'symbols'." });
    }
    const found = names.map((name) => markets.get(name));
    if (found.some((market) => market === undefined))
      return json(400, { code: -1121, msg: 'Invalid symbol.' });
    selected = found as PairMarket[];
  } else {
    selected = [...markets.values()];
  }
  if (!trading) selected = [];
  if (fault === 'malformed') {
    const whole = JSON.stringify(selected.map((market) => restTicker(market, now, 'none')));
    return { status: 200, body: whole.slice(0, Math.floor(whole.length / 2)) };
  }
  const answers = selected.map((market) => restTicker(market, now, fault));
  return json(200, single ? answers[0] : answers);
}

/** The 24 h ticker of `markets` (keyed by pair, e.g. `BTCUSDT`). */
export function binanceRest(markets: ReadonlyMap<string, PairMarket>): HttpEndpoint {
  return {
    exchange: 'binance',
    path: '/api/v3/ticker/24hr',
    answer: (params, fault) => tickers(markets, params, fault),
    rateLimited: (headers) =>
      json(
        429,
        { code: -1003, msg: 'Too many requests; please use the websocket for live updates.' },
        headers,
      ),
    unavailable: () =>
      json(503, { code: -1001, msg: 'Internal error; unable to process your request. Please try again.' }),
    geoBlocked: () => json(451, BINANCE_GEO_BLOCK),
  };
}
