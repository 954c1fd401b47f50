/**
 * Upstream wire formats, field for field, as the exchanges document them:
 * - Binance `<symbol>@ticker` event ("Individual Symbol Ticker Streams",
 *   https://developers.binance.com/docs/binance-spot-api-docs/web-socket-streams), prices and
 *   quantities as strings, ids and times as integers;
 * - Binance `GET /api/v3/ticker/24hr` FULL response
 *   (https://developers.binance.com/docs/binance-spot-api-docs/rest-api/market-data-endpoints);
 * - Nobitex `GET /market/stats` (https://apidocs.nobitex.ir/#market-stats), every value a string,
 *   prices in rial.
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

/** 24 h: the ticker statistics window. */
const WINDOW_MS = 86_400_000;

/** A price as sent under the current fault: `negative` → "-…", `nan` → "NaN", `absurd` → ×1000. */
function wirePrice(units: bigint, fault: SimulatorFault): string {
  switch (fault) {
    case 'negative':
      return `-${formatUnits(units)}`;
    case 'nan':
      return 'NaN';
    case 'absurd':
      return formatUnits(units * 1000n);
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

/** Corrupt Nobitex bodies, in turn: a body cut mid-JSON, and a market without `bestSell`. */
export function malformedStatsBody(market: TetherMarket, variant: number): string {
  if (variant % 2 === 0) {
    const whole = JSON.stringify({ status: 'ok', stats: { 'usdt-rls': tetherStats(market, 'none') } });
    return whole.slice(0, Math.floor(whole.length / 2));
  }
  const { bestSell: _dropped, ...withoutBestSell } = tetherStats(market, 'none');
  return JSON.stringify({ status: 'ok', stats: { 'usdt-rls': withoutBestSell } });
}
