/**
 * Four more Iranian exchanges as the `sources/` presets read them through the json-http kind
 * (docs/sources.md#presets), each in the shape of its own public answer and all over the same
 * simulated market as Nobitex and Wallex (`quoted-markets.ts`), so a test can predict each value:
 *
 * - Ramzinex `GET /exchange/api/v1.0/exchange/pairs`: every market in one list, `{"status":0,
 *   "data":[{"pair_id":2,"base_currency_symbol":{"en":"btc",…},"quote_currency_symbol":{"en":"irr",
 *   …},"sell":39999989872,"buy":39909989891,…}]}`, prices in rial as JSON numbers (the element
 *   ccxt's fork by ArzDigitalLabs records, `ts/src/ramzinex.ts`; the list is what Ramzinex's SDK,
 *   github.com/ramzinex/php-sdk, `getAllPrice()`, asks for). `…/pairs/{pair_id}` answers one
 *   market, `{"status":0,"data":{…}}`. The rial markets of the coins in `RAMZINEX_PAIR_IDS` are listed.
 * - Bitpin `GET /api/v1/mth/orderbook/{BASE}_{QUOTE}/`: `{"asks":[["price","amount"],…],
 *   "bids":[…]}`, asks lowest first, `IRT` in toman, `USDT` in tether.
 * - Tabdeal `GET /r/api/v1/depth?symbol={BASE}{QUOTE}&limit=…`: the same book as
 *   `{"lastUpdateId":…,"bids":[…],"asks":[…]}`, `IRT` in toman.
 * - Aban Tether `GET /manager/coins/data`: one document, `{"data":[{"symbol":"USDT",
 *   "price_buy":"113540.0","price_sell":"112630.0","is_active":true,"is_buy_active":true,…}]}`,
 *   `price_buy` what a user pays, in toman (the answer ccxt's fork by ArzDigitalLabs records,
 *   `ts/src/abantether.ts`). Tether and every simulated coin are listed; `tether_price` is the usdt ask.
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
export const RAMZINEX_PAIRS_LIST_PATH = '/exchange/api/v1.0/exchange/pairs';
export const ABANTETHER_COINS_PATH = '/manager/coins/data';

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

/** Ramzinex's currency ids and names of the simulated coins' bases; rial is id 2. */
const RAMZINEX_NAMES: Readonly<Record<string, { fa: string; url: string }>> = {
  USDT: { fa: 'تتر', url: 'tether-usdt' },
  BTC: { fa: 'بیت کوین', url: 'bitcoin-btc' },
  ETH: { fa: 'اتریوم', url: 'ethereum-eth' },
  TRX: { fa: 'ترون', url: 'tron-trx' },
  DOGE: { fa: 'دوج کوین', url: 'dogecoin-doge' },
  TON: { fa: 'تون کوین', url: 'toncoin-ton' },
};

/**
 * Ramzinex's markets: the list (`…/pairs`) and one market (`…/pairs/{pair_id}`), both served under
 * the list's path. Each element names its own base and quote, which is how the preset finds a coin.
 */
export function ramzinex(coins: readonly ListedCoin[], tether: TetherMarket): HttpEndpoint {
  function element(symbol: string, id: number, fault: SimulatorFault): Record<string, unknown> | undefined {
    const market = marketOf(coins, tether, symbol, 'rial');
    if (market === undefined) return undefined;
    const names = RAMZINEX_NAMES[symbol] ?? { fa: symbol, url: symbol.toLowerCase() };
    const sell = faultyNumber(market, fault);
    return {
      amount_step: 0.00002,
      base_currency_id: id + 1000,
      base_currency_symbol: { en: symbol.toLowerCase(), fa: names.fa },
      base_precision: 5,
      buy: Number(formatPrice(market.bid)),
      crypto_box: 0,
      financial: {
        last24h: {
          base_volume: market.volume,
          change_percent: Number(market.changePct.toFixed(2)),
          close: Number(formatPrice(market.last)),
          highest: Number(formatPrice(market.high)),
          lowest: Number(formatPrice(market.low)),
          open: Number(formatPrice(market.open)),
          quote_volume: Math.round(market.volume * Number(formatPrice(market.last))),
        },
      },
      name: { en: `${names.url.split('-')[0]}/rial`, fa: names.fa },
      pair_id: id,
      price_precision: 0,
      quote_currency_id: 2,
      quote_currency_symbol: { en: 'irr', fa: 'ریال' },
      quote_precision: 0,
      ...(fault === 'malformed' ? {} : { sell }),
      show_order: 50,
      url_name: names.url,
      web_link: `https://ramzinex.com/exchange/orderbook/${id}`,
    };
  }
  function answer(_params: URLSearchParams, fault: SimulatorFault, pathname = ''): UpstreamAnswer {
    const rest = pathname.slice(RAMZINEX_PAIRS_LIST_PATH.length).replace(/^\/|\/$/g, '');
    if (rest === '') {
      const data = Object.entries(RAMZINEX_PAIR_IDS)
        .map(([symbol, id]) => element(symbol, id, fault))
        .filter((item) => item !== undefined);
      return json(200, { status: 0, data });
    }
    const entry = Object.entries(RAMZINEX_PAIR_IDS).find(([, id]) => String(id) === rest);
    const data = entry && element(entry[0], entry[1], fault);
    if (data === undefined) return json(404, { status: -1, error: 'pair not found' });
    return json(200, { status: 0, data });
  }
  return {
    exchange: 'panel',
    path: RAMZINEX_PAIRS_LIST_PATH,
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
  function entry(
    id: number,
    symbol: string,
    name: string,
    fault: SimulatorFault,
  ): Record<string, unknown> | undefined {
    const toman = marketOf(coins, tether, symbol, 'toman');
    if (toman === undefined) return undefined;
    const usdt = symbol === 'USDT' ? undefined : marketOf(coins, tether, symbol, 'usdt');
    return {
      id,
      name,
      symbol,
      persian_name: name,
      is_active: true,
      is_withdrawal_active: true,
      is_deposit_active: true,
      is_mid_wallet_transfer_active: true,
      is_buy_active: true,
      is_sell_active: true,
      is_credit_active: true,
      min_trade: '1.00',
      max_trade: '100000.00',
      tether_price: usdt === undefined ? '1' : formatPrice(usdt.ask),
      ...(fault === 'malformed' ? {} : { price_buy: faultyPrice(toman.ask, fault) }),
      price_sell: formatPrice(toman.bid),
      volume24h: toman.volume.toFixed(2),
      percent_change_1h: '0.00',
      percent_change_24h: toman.changePct.toFixed(2),
      percent_change_7d: '0.00',
      market_cap: '0.00',
      coin_type: 'COIN',
      exchange_type: 'binance',
      icon: '',
      fund_tether_buy: '0',
      fund_tether_sell: '0',
      irt_decimal_point: toman.ask.decimals,
      tether_decimal_point: usdt?.ask.decimals ?? 0,
      amount_decimal_point: 6,
    };
  }
  function answer(_params: URLSearchParams, fault: SimulatorFault): UpstreamAnswer {
    const listed = [
      entry(1, 'USDT', 'Tether USDt', fault),
      ...coins.map((coin, index) => entry(index + 2, coin.symbol, coin.symbol, fault)),
    ];
    return json(200, { data: listed.filter((item) => item !== undefined) });
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
