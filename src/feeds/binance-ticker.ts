/**
 * Validation of Binance 24 h ticker data, the stream event (`<symbol>@ticker`,
 * https://developers.binance.com/docs/binance-spot-api-docs/web-socket-streams) and the REST
 * ticker (`GET /api/v3/ticker/24hr`). Every field nerkh uses is checked; anything else is ignored.
 * Prices arrive as decimal strings and are converted with Number() alone, never rounded, so the
 * published ask is exactly the quoted one.
 */
/** One valid ticker: the ask in USDT (`a`), the 24 h change (`P`), the event time (`E`). */
interface Ticker {
  /** Binance pair, upper case, e.g. `BTCUSDT` (field `s`). */
  pair: string;
  ask: number;
  changePct: number | null;
  /** Epoch milliseconds. */
  tickTime: number;
}

export type TickerResult =
  | { kind: 'quote'; quote: Ticker }
  | { kind: 'rejected'; reason: string }
  /** A reply to a SUBSCRIBE-style request, or an error reply: not market data. */
  | { kind: 'control'; error: string | null }
  /**
   * `serverShutdown`: the server is about to close the connection and asks the client to open a
   * new one (docs/sources.md, "Binance"). Not market data, and not bad data either.
   */
  | { kind: 'shutdown'; eventTime: number | null };

/** Binance writes decimals as plain digits with an optional fraction, never with an exponent. */
const DECIMAL = /^-?\d+(?:\.\d+)?$/;

function rejected(reason: string): TickerResult {
  return { kind: 'rejected', reason };
}

function positivePrice(value: unknown): number | string {
  if (value === undefined || value === null) return 'ask-missing';
  if (typeof value !== 'string') return 'ask-not-a-string';
  if (!DECIMAL.test(value)) return 'ask-not-a-number';
  const price = Number(value);
  if (!Number.isFinite(price)) return 'ask-not-a-number';
  if (price <= 0) return 'ask-not-positive';
  return price;
}

/** `P` (or REST `priceChangePercent`): a decimal string; null when Binance leaves it out. */
function changePercent(value: unknown): number | null | undefined {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || !DECIMAL.test(value)) return undefined;
  const pct = Number(value);
  return Number.isFinite(pct) ? pct : undefined;
}

function validQuote(
  pair: unknown,
  ask: unknown,
  change: unknown,
  tickTime: unknown,
  pairs: ReadonlySet<string>,
): TickerResult {
  if (typeof pair !== 'string') return rejected('symbol-missing');
  if (!pairs.has(pair)) return rejected('unknown-pair');
  const price = positivePrice(ask);
  if (typeof price === 'string') return rejected(price);
  if (typeof tickTime !== 'number' || !Number.isSafeInteger(tickTime) || tickTime <= 0) {
    return rejected('invalid-event-time');
  }
  const changePct = changePercent(change);
  if (changePct === undefined) return rejected('invalid-change-pct');
  return { kind: 'quote', quote: { pair, ask: price, changePct, tickTime } };
}

/**
 * One text frame of a combined stream (`{"stream":"btcusdt@ticker","data":{…}}`), or of a raw
 * stream (the bare event). `pairs` are the upper-case pairs this connection asked for.
 */
export function parseTickerFrame(text: string, pairs: ReadonlySet<string>): TickerResult {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return rejected('invalid-json');
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    return rejected('not-an-object');
  }
  const record = message as Record<string, unknown>;
  if ('id' in record && ('result' in record || 'error' in record)) {
    return { kind: 'control', error: 'error' in record ? JSON.stringify(record.error) : null };
  }
  let event: unknown = record;
  if ('stream' in record || 'data' in record) {
    event = record.data;
    if (typeof record.stream !== 'string' || typeof event !== 'object' || event === null) {
      return rejected('malformed-envelope');
    }
  }
  const data = event as Record<string, unknown>;
  if (data.e === 'serverShutdown') {
    return { kind: 'shutdown', eventTime: typeof data.E === 'number' ? data.E : null };
  }
  if (data.e !== '24hrTicker') return rejected('unexpected-event');
  if (
    typeof record.stream === 'string' &&
    typeof data.s === 'string' &&
    record.stream !== `${data.s.toLowerCase()}@ticker`
  ) {
    return rejected('stream-symbol-mismatch');
  }
  return validQuote(data.s, data.a, data.P, data.E, pairs);
}

/**
 * One element of a REST 24 h ticker answer. REST tickers carry no event time: `closeTime` (the
 * end of the statistics window, i.e. when Binance computed them) stands in, else `now`.
 */
export function parseRestTicker(item: unknown, pairs: ReadonlySet<string>, now: number): TickerResult {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return rejected('not-an-object');
  const data = item as Record<string, unknown>;
  const closeTime = data.closeTime;
  const tickTime =
    typeof closeTime === 'number' && Number.isSafeInteger(closeTime) && closeTime > 0 ? closeTime : now;
  return validQuote(data.symbol, data.askPrice, data.priceChangePercent, tickTime, pairs);
}
