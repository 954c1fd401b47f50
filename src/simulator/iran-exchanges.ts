/**
 * Three more Iranian exchanges as the `sources/` presets read them through the json-http kind
 * (docs/sources.md#presets), each in the shape of its own public answer and all over the same
 * simulated market as Nobitex and Wallex (`quoted-markets.ts`), so a test can predict each value:
 *
 * - Ramzinex `GET /exchange/api/v1.0/exchange/pairs/{pair_id}`: one market per request,
 *   `{"status":0,"data":{"sell":433000,"buy":380008,"pair_id":272,…}}`, prices in rial as JSON
 *   numbers (the answer recorded in Ramzinex's own SDK README, github.com/ramzinex/php-sdk).
 *   The rial markets of the coins in `RAMZINEX_PAIR_IDS` are listed.
 * - Bitpin `GET /api/v1/mth/orderbook/{BASE}_{QUOTE}/`: `{"asks":[["price","amount"],…],
 *   "bids":[…]}`, asks lowest first, `IRT` in toman, `USDT` in tether.
 * - Tabdeal `GET /r/api/v1/depth?symbol={BASE}{QUOTE}&limit=…`: the same book as
 *   `{"lastUpdateId":…,"bids":[…],"asks":[…]}`, `IRT` in toman.
 *
 * - Aban Tether `GET /management/all-coins/?format=json`: one document, a list of every coin,
 *   `{"symbol":"USDT","priceBuy":"59200.0","priceSell":"58800.0","tetherPrice":"1","active":true,
 *   "operationStatus":{"buyActive":true,…},…}`, `priceBuy` what a user pays in toman (the shape
 *   ccxt recorded, github.com/ccxt/ccxt `ts/src/abantether.ts`). Tether and every simulated coin
 *   are listed; their `tetherPrice` is the usdt ask.
 *
 * An unlisted market answers 404. These exchanges follow the `panel` fault: the json-http
 * documents share one fault switch, so a drill breaks every json-http source at once.
 */
import type { SimulatorFault } from './faults.ts';
import { type HttpEndpoint, json, type UpstreamAnswer } from './http-endpoints.ts';
import type { TetherMarket } from './market.ts';
import { formatPrice, type ListedCoin, type QuotedMarket, quoteIn, tetherInToman } from './quoted-markets.ts';
import { faultyPrice } from './wire.ts';

/** Ramzinex's ids of the rial markets of these coins (its `pair_id`; tether's is 11). */
export const RAMZINEX_PAIR_IDS: Readonly<Record<string, number>> = {
  USDT: 11,
  BTC: 2,
  ETH: 7,
  TRX: 20,
  DOGE: 61,
  TON: 272,
};

export const RAMZINEX_PAIRS_PATH = '/exchange/api/v1.0/exchange/pairs/';
export const BITPIN_ORDERBOOK_PATH = '/api/v1/mth/orderbook/';
export const TABDEAL_DEPTH_PATH = '/r/api/v1/depth';
export const ABANTETHER_COINS_PATH = '/management/all-coins/';

type Currency = 'toman' | 'usdt' | 'rial';

/** A coin's (or tether's) market in one currency, or undefined when it is not simulated. */
function marketOf(
  coins: readonly ListedCoin[],
  tether: TetherMarket,
  symbol: string,
  currency: Currency,
): QuotedMarket | undefined {
  if (symbol === 'USDT') {
    if (currency === 'usdt') return undefined;
    const toman = tetherInToman(tether);
    if (currency === 'toman') return toman;
    const rial = (price: QuotedMarket['ask']) => ({ units: price.units * 10n, decimals: 0 });
    return { ...toman, ask: rial(toman.ask), bid: rial(toman.bid), last: rial(toman.last) };
  }
  const coin = coins.find((listed) => listed.symbol === symbol);
  return coin && quoteIn(coin.symbol, coin.market, currency, tether);
}

/** Five levels each side around the best ask and bid, one price step apart. */
function book(market: QuotedMarket, fault: SimulatorFault): { asks: string[][]; bids: string[][] } {
  const step = 10n ** BigInt(8 - market.ask.decimals);
  const levels = [0n, 1n, 2n, 3n, 4n];
  return {
    asks: levels.map((i) => [
      i === 0n
        ? faultyPrice(market.ask, fault)
        : formatPrice({ ...market.ask, units: market.ask.units + i * step }),
      (0.5 + Number(i)).toFixed(4),
    ]),
    bids: levels.map((i) => [
      formatPrice({ ...market.bid, units: market.bid.units - i * step }),
      (1 + Number(i)).toFixed(4),
    ]),
  };
}

/** The JSON number a faulty price becomes: NaN and negatives as Ramzinex would never send, but a parser must refuse. */
function faultyNumber(market: QuotedMarket, fault: SimulatorFault): number | string {
  const text = faultyPrice(market.ask, fault);
  return fault === 'nan' ? text : Number(text);
}

export function ramzinex(coins: readonly ListedCoin[], tether: TetherMarket): HttpEndpoint {
  const symbolOf = new Map(Object.entries(RAMZINEX_PAIR_IDS).map(([symbol, id]) => [String(id), symbol]));
  function answer(_params: URLSearchParams, fault: SimulatorFault, pathname = ''): UpstreamAnswer {
    const id = pathname.slice(RAMZINEX_PAIRS_PATH.length).replace(/\/$/, '');
    const symbol = symbolOf.get(id);
    const market = symbol === undefined ? undefined : marketOf(coins, tether, symbol, 'rial');
    if (market === undefined) return json(404, { status: -1, error: 'pair not found' });
    const data = {
      sell: faultyNumber(market, fault),
      buy: Number(formatPrice(market.bid)),
      pair_id: Number(id),
      base_precision: 2,
      quote_precision: 0,
      url_name: symbol?.toLowerCase(),
    };
    if (fault === 'malformed') return json(200, { status: 0, data: { ...data, sell: undefined } });
    return json(200, { status: 0, data });
  }
  return {
    exchange: 'panel',
    path: RAMZINEX_PAIRS_PATH,
    pathPrefix: true,
    answer,
    rateLimited: (headers) => json(429, { status: -1, error: 'too many requests' }, headers),
    unavailable: () => json(503, { status: -1, error: 'service unavailable' }),
    geoBlocked: () => json(451, { status: -1, error: 'unavailable for legal reasons' }),
  };
}

/** Quote codes as both exchanges write them: IRT for toman, USDT for tether. */
function split(code: string): { symbol: string; currency: Currency } | undefined {
  const match = /^([A-Z0-9]+?)_?(IRT|USDT)$/.exec(code.toUpperCase());
  if (!match) return undefined;
  return { symbol: match[1] as string, currency: match[2] === 'IRT' ? 'toman' : 'usdt' };
}

export function bitpin(coins: readonly ListedCoin[], tether: TetherMarket): HttpEndpoint {
  function answer(_params: URLSearchParams, fault: SimulatorFault, pathname = ''): UpstreamAnswer {
    const code = pathname.slice(BITPIN_ORDERBOOK_PATH.length).replace(/\/$/, '');
    const pair = code.includes('_') ? split(code) : undefined;
    const market = pair && marketOf(coins, tether, pair.symbol, pair.currency);
    if (market === undefined) return json(404, { detail: 'Not found.' });
    const { asks, bids } = book(market, fault);
    if (fault === 'malformed') return json(200, { asks: [], bids });
    return json(200, { asks, bids });
  }
  return {
    exchange: 'panel',
    path: BITPIN_ORDERBOOK_PATH,
    pathPrefix: true,
    answer,
    rateLimited: (headers) => json(429, { detail: 'Request was throttled.' }, headers),
    unavailable: () => json(503, { detail: 'Service unavailable.' }),
    geoBlocked: () => json(451, { detail: 'Unavailable for legal reasons.' }),
  };
}

export function tabdeal(coins: readonly ListedCoin[], tether: TetherMarket): HttpEndpoint {
  let updateId = 1_000_000;
  function answer(params: URLSearchParams, fault: SimulatorFault): UpstreamAnswer {
    const code = params.get('symbol') ?? '';
    const pair = code.includes('_') ? undefined : split(code);
    const market = pair && marketOf(coins, tether, pair.symbol, pair.currency);
    if (market === undefined) return json(400, { code: -1121, msg: 'Invalid symbol.' });
    const limit = Math.max(1, Math.min(5, Number(params.get('limit') ?? 5) || 5));
    const { asks, bids } = book(market, fault);
    updateId += 1;
    if (fault === 'malformed') return json(200, { lastUpdateId: updateId, bids, asks: [] });
    return json(200, { lastUpdateId: updateId, bids: bids.slice(0, limit), asks: asks.slice(0, limit) });
  }
  return {
    exchange: 'panel',
    path: TABDEAL_DEPTH_PATH,
    answer,
    rateLimited: (headers) => json(429, { code: -1003, msg: 'Too many requests.' }, headers),
    unavailable: () => json(503, { code: -1001, msg: 'Service unavailable.' }),
    geoBlocked: () => json(451, { code: -1002, msg: 'Unavailable for legal reasons.' }),
  };
}

export function abantether(coins: readonly ListedCoin[], tether: TetherMarket): HttpEndpoint {
  function entry(symbol: string, name: string, fault: SimulatorFault): Record<string, unknown> | undefined {
    const toman = marketOf(coins, tether, symbol, 'toman');
    if (toman === undefined) return undefined;
    const usdt = symbol === 'USDT' ? undefined : marketOf(coins, tether, symbol, 'usdt');
    return {
      symbol,
      name,
      categories: [],
      tetherPrice: usdt === undefined ? '1' : formatPrice(usdt.ask),
      priceBuy: faultyPrice(toman.ask, fault),
      priceSell: formatPrice(toman.bid),
      past24: toman.changePct.toFixed(2),
      active: true,
      operationStatus: {
        buyActive: true,
        sellActive: true,
        withdrawalActive: true,
        depositActive: true,
        transferActive: true,
      },
    };
  }
  function answer(_params: URLSearchParams, fault: SimulatorFault): UpstreamAnswer {
    const listed = [
      entry('USDT', 'Tether', fault),
      ...coins.map((coin) => entry(coin.symbol, coin.symbol, fault)),
    ];
    const entries = listed.filter((item) => item !== undefined);
    if (fault === 'malformed')
      return json(
        200,
        entries.map(({ priceBuy: _, ...rest }) => rest),
      );
    return json(200, entries);
  }
  return {
    exchange: 'panel',
    path: ABANTETHER_COINS_PATH,
    answer,
    rateLimited: (headers) => json(429, { detail: 'Request was throttled.' }, headers),
    unavailable: () => json(503, { detail: 'Service unavailable.' }),
    geoBlocked: () => json(451, { detail: 'Unavailable for legal reasons.' }),
  };
}
