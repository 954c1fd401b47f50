/**
 * Upstream wire formats, field for field, as the exchanges document them:
 * - Binance `<symbol>@ticker` event ("Individual Symbol Ticker Streams",
 *   https://developers.binance.com/docs/binance-spot-api-docs/web-socket-streams), prices and
 *   quantities as strings, ids and times as integers;
 * - Binance `GET /api/v3/ticker/24hr` FULL response
 *   (https://developers.binance.com/docs/binance-spot-api-docs/rest-api/market-data-endpoints);
 * - Nobitex `GET /market/stats` (https://apidocs.nobitex.ir/#market-stats), every value a string,
 *   prices in rial (`-rls` markets) or tether (`-usdt` markets);
 * - Wallex `GET /v1/markets` (https://api-docs.wallex.ir, "List of market and status"), prices as
 *   strings, `TMN` markets in toman;
 * - a made-up exchange's panel document for the `json-http` kind (see `panel.ts`);
 * - Binance's HTTP 451 body for clients in restricted locations.
 * Price faults corrupt only the serialized prices; the market state stays sane.
 */
import type { SimulatorFault } from './faults.ts';
import {
  changePercent,
  formatUnits,
  type PairMarket,
  quoteVolume,
  type TetherMarket,
  tradeCount,
  weightedAverage,
} from './market.ts';
import { formatPrice, type Price, type QuotedMarket } from './quoted-markets.ts';

/** 24 h: the ticker statistics window. */
const WINDOW_MS = 86_400_000;

/**
 * A price as sent under the current fault: `negative` → "-…", `nan` → "NaN", and the unit
 * mistakes `absurd` → ×1000, `times-ten` → ×10, `tenth` → ÷10.
 */
function wirePrice(units: bigint, fault: SimulatorFault): string {
  switch (fault) {
    case 'negative':
      return `-${formatUnits(units)}`;
    case 'nan':
      return 'NaN';
    case 'absurd':
      return formatUnits(units * 1000n);
    case 'times-ten':
      return formatUnits(units * 10n);
    case 'tenth':
      return formatUnits(units / 10n);
    default:
      return formatUnits(units);
  }
}

/** A Binance `24hrTicker` payload, keys in Binance's order. */
export function tickerEvent(
  market: PairMarket,
  eventTime: number,
  fault: SimulatorFault,
): Record<string, unknown> {
  return {
    e: '24hrTicker',
    E: eventTime,
    s: market.pair,
    p: formatUnits(market.last - market.open),
    P: changePercent(market),
    w: formatUnits(weightedAverage(market)),
    x: formatUnits(market.prevClose),
    c: wirePrice(market.last, fault),
    Q: market.lastQty,
    b: wirePrice(market.bid, fault),
    B: market.bidQty,
    a: wirePrice(market.ask, fault),
    A: market.askQty,
    o: formatUnits(market.open),
    h: formatUnits(market.high),
    l: formatUnits(market.low),
    v: market.volume.toFixed(8),
    q: quoteVolume(market),
    O: eventTime - WINDOW_MS,
    C: eventTime,
    F: market.firstTradeId,
    L: market.lastTradeId,
    n: tradeCount(market),
  };
}

/**
 * The three shapes of a corrupt ticker frame the `malformed` fault sends, in turn: a frame cut
 * mid-JSON, an event without the best ask, and an ask sent as a JSON number instead of a string.
 */
export function malformedTickerFrame(
  market: PairMarket,
  eventTime: number,
  combined: boolean,
  variant: number,
): string {
  const event = tickerEvent(market, eventTime, 'none');
  const wrap = (data: unknown) => JSON.stringify(combined ? { stream: market.stream, data } : data);
  switch (variant % 3) {
    case 0: {
      const whole = wrap(event);
      return whole.slice(0, Math.floor(whole.length / 2));
    }
    case 1: {
      const { a: _dropped, ...withoutAsk } = event;
      return wrap(withoutAsk);
    }
    default:
      return wrap({ ...event, a: Number(event.a) });
  }
}

/** A Binance REST 24 h ticker (FULL). */
export function restTicker(market: PairMarket, now: number, fault: SimulatorFault): Record<string, unknown> {
  return {
    symbol: market.pair,
    priceChange: formatUnits(market.last - market.open),
    priceChangePercent: changePercent(market),
    weightedAvgPrice: formatUnits(weightedAverage(market)),
    prevClosePrice: formatUnits(market.prevClose),
    lastPrice: wirePrice(market.last, fault),
    lastQty: market.lastQty,
    bidPrice: wirePrice(market.bid, fault),
    bidQty: market.bidQty,
    askPrice: wirePrice(market.ask, fault),
    askQty: market.askQty,
    openPrice: formatUnits(market.open),
    highPrice: formatUnits(market.high),
    lowPrice: formatUnits(market.low),
    volume: market.volume.toFixed(8),
    quoteVolume: quoteVolume(market),
    openTime: now - WINDOW_MS,
    closeTime: now,
    firstId: market.firstTradeId,
    lastId: market.lastTradeId,
    count: tradeCount(market),
  };
}

function rialPrice(rial: number, fault: SimulatorFault): string {
  switch (fault) {
    case 'negative':
      return String(-rial);
    case 'nan':
      return 'NaN';
    case 'absurd':
      return String(rial * 1000);
    case 'times-ten':
      return String(rial * 10);
    case 'tenth':
      return String(rial / 10);
    default:
      return String(rial);
  }
}

/** Nobitex `stats["usdt-rls"]`; price faults apply to `bestSell`, the value nerkh reads. */
export function tetherStats(market: TetherMarket, fault: SimulatorFault): Record<string, unknown> {
  const dayChange = ((market.latest - market.dayOpen) / market.dayOpen) * 100;
  return {
    isClosed: false,
    bestSell: rialPrice(market.bestSell, fault),
    bestBuy: String(market.bestBuy),
    volumeSrc: market.volumeSrc.toFixed(10),
    volumeDst: (market.volumeSrc * market.latest).toFixed(10),
    latest: String(market.latest),
    mark: String(Math.round((market.bestSell + market.bestBuy) / 20) * 10),
    dayLow: String(market.dayLow),
    dayHigh: String(market.dayHigh),
    dayOpen: String(market.dayOpen),
    dayClose: String(market.latest),
    dayChange: dayChange.toFixed(2),
  };
}

/** Binance's answer, with HTTP 451, to a client in a location its terms exclude — word for word. */
export const BINANCE_GEO_BLOCK = {
  code: 0,
  msg: "Service unavailable from a restricted location according to 'b. Eligibility' in https://www.binance.com/en/terms. Please contact customer service if you believe you received this message in error.",
};

/**
 * A price as sent under the current fault: `negative` → "-…", `nan` → "NaN", and the unit
 * mistakes `absurd` → ×1000, `times-ten` → ×10, `tenth` → ÷10.
 */
export function faultyPrice(price: Price, fault: SimulatorFault): string {
  switch (fault) {
    case 'negative':
      return `-${formatPrice(price)}`;
    case 'nan':
      return 'NaN';
    case 'absurd':
      return formatPrice({ ...price, units: price.units * 1000n });
    case 'times-ten':
      return formatPrice({ ...price, units: price.units * 10n });
    case 'tenth':
      return formatPrice({ units: price.units / 10n, decimals: Math.min(8, price.decimals + 1) });
    default:
      return formatPrice(price);
  }
}

/** Nobitex `stats["btc-rls"]` or `stats["btc-usdt"]`; price faults apply to `bestSell`. */
export function coinStats(market: QuotedMarket, fault: SimulatorFault): Record<string, unknown> {
  const last = Number(formatPrice(market.last));
  return {
    isClosed: false,
    bestSell: faultyPrice(market.ask, fault),
    bestBuy: formatPrice(market.bid),
    volumeSrc: market.volume.toFixed(10),
    volumeDst: (market.volume * last).toFixed(10),
    latest: formatPrice(market.last),
    mark: formatPrice({ ...market.ask, units: (market.ask.units + market.bid.units) / 2n }),
    dayLow: formatPrice(market.low),
    dayHigh: formatPrice(market.high),
    dayOpen: formatPrice(market.open),
    dayClose: formatPrice(market.last),
    dayChange: market.changePct.toFixed(2),
  };
}

/** Wallex's names of its quote assets, in Persian as `faQuoteAsset` gives them. */
const WALLEX_QUOTE_NAMES: Readonly<Record<string, string>> = { TMN: 'تومان', USDT: 'تتر' };

/**
 * One entry of Wallex's `result.symbols`, keys in Wallex's order. Prices are strings: `TMN`
 * markets with the price's own decimals (a whole toman for most coins), high and low with 8.
 */
export function wallexMarket(
  market: QuotedMarket,
  quoteAsset: 'TMN' | 'USDT',
  nameFa: string,
  fault: SimulatorFault,
): Record<string, unknown> {
  const quoteName = WALLEX_QUOTE_NAMES[quoteAsset] ?? quoteAsset;
  const eight = (price: Price) => formatPrice({ ...price, decimals: 8 });
  const last = Number(formatPrice(market.last));
  return {
    symbol: `${market.symbol}${quoteAsset}`,
    baseAsset: market.symbol,
    baseAssetPrecision: 8,
    quoteAsset,
    quotePrecision: market.ask.decimals,
    faName: `${nameFa} - ${quoteName}`,
    faBaseAsset: nameFa,
    faQuoteAsset: quoteName,
    stepSize: 6,
    tickSize: market.ask.decimals,
    minQty: 0.000001,
    maxQty: 100000,
    minNotional: quoteAsset === 'TMN' ? 100000 : 5,
    stats: {
      bidPrice: formatPrice(market.bid),
      askPrice: faultyPrice(market.ask, fault),
      '24h_ch': market.changePct.toFixed(2),
      '24h_volume': market.volume.toFixed(8),
      '24h_quoteVolume': (market.volume * last).toFixed(16),
      '24h_highPrice': eight(market.high),
      '24h_lowPrice': eight(market.low),
      lastPrice: eight(market.last),
      lastQty: (1000 / Math.max(last, 1e-8)).toFixed(8),
    },
  };
}

/** One quote of the panel document: `{"pair":"BTC-TMN","sell":"…","buy":"…","change24h":…,"updated_at":"…"}`. */
export function panelQuote(
  market: QuotedMarket,
  quote: 'TMN' | 'USDT',
  now: number,
  fault: SimulatorFault,
): Record<string, unknown> {
  return {
    pair: `${market.symbol}-${quote}`,
    sell: faultyPrice(market.ask, fault),
    buy: formatPrice(market.bid),
    change24h: Number(market.changePct.toFixed(2)),
    updated_at: new Date(now).toISOString(),
  };
}

/**
 * A corrupt body, in turn: the document cut mid-JSON, and the document with the ask field
 * (`field`) taken out of every market. `build(withoutAsk)` gives the document.
 */
export function malformedBody(
  build: (withoutAsk: (entry: Record<string, unknown>) => Record<string, unknown>) => unknown,
  field: string,
  variant: number,
): string {
  if (variant % 2 === 0) {
    const whole = JSON.stringify(build((entry) => entry));
    return whole.slice(0, Math.floor(whole.length / 2));
  }
  return JSON.stringify(
    build((entry) => {
      const { [field]: _dropped, ...rest } = entry;
      return rest;
    }),
  );
}
