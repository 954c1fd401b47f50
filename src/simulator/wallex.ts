/**
 * Wallex `GET /v1/markets` (docs/sources.md, "Wallex"): every simulated coin in a toman
 * (`BTCTMN`) and a tether (`BTCUSDT`) market, and tether's `USDTTMN`, in one document, with
 * Wallex's `{success, message, result}` envelope; and each market's order book,
 * `GET /v1/depth?symbol=BTCTMN` (`result.ask` and `result.bid`, `{price, quantity, sum}` each).
 * `TMN` prices are the coins' toman prices (`quoted-markets.ts`): what `askPrice`, or the lowest
 * `ask` of the book, says is what nerkh publishes.
 *
 * `/v1/markets` can be made slow (it has been seen taking tens of seconds from a cold start) or
 * gone (it is only in Wallex's older docs) with `setMarketsCondition`; the books still answer.
 */
import type { SimulatorFault } from './faults.ts';
import { type HttpEndpoint, json, type UpstreamAnswer } from './http-endpoints.ts';
import type { TetherMarket } from './market.ts';
import { type ListedCoin, quoteIn, tetherInToman } from './quoted-markets.ts';
import { malformedBody, wallexMarket } from './wire.ts';

type Entry = Record<string, unknown>;

const OK_MESSAGE = 'The operation was successful';

/** How `/v1/markets` answers, apart from the faults: `slow` after `delayMs`, `gone` with a 404. */
export type WallexMarketsCondition =
  | { kind: 'normal' }
  | { kind: 'slow'; delayMs: number }
  | { kind: 'gone' };

export interface WallexEndpoints {
  markets: HttpEndpoint;
  depth: HttpEndpoint;
  setMarketsCondition(condition: WallexMarketsCondition): void;
}

export function wallex(
  coins: readonly ListedCoin[],
  tether: TetherMarket,
  tetherNameFa: string,
): WallexEndpoints {
  /** Which corrupt body the `malformed` fault sends next. */
  let malformedVariant = 0;
  let condition: WallexMarketsCondition = { kind: 'normal' };

  function symbols(fault: SimulatorFault): Entry[] {
    const entries: Entry[] = [wallexMarket(tetherInToman(tether), 'TMN', tetherNameFa, fault)];
    for (const coin of coins) {
      entries.push(
        wallexMarket(quoteIn(coin.symbol, coin.market, 'toman', tether), 'TMN', coin.nameFa, fault),
      );
      entries.push(
        wallexMarket(quoteIn(coin.symbol, coin.market, 'usdt', tether), 'USDT', coin.nameFa, fault),
      );
    }
    return entries;
  }

  function document(entries: Entry[], stats: (stats: Entry) => Entry): unknown {
    return {
      result: {
        symbols: Object.fromEntries(
          entries.map((entry) => [entry.symbol, { ...entry, stats: stats(entry.stats as Entry) }]),
        ),
      },
      message: OK_MESSAGE,
      success: true,
    };
  }

  function answer(_params: URLSearchParams, fault: SimulatorFault): UpstreamAnswer {
    if (condition.kind === 'gone') return failure(404, 'Not Found');
    const delay = condition.kind === 'slow' ? { delayMs: condition.delayMs } : {};
    return { ...marketsAnswer(fault), ...delay };
  }

  function marketsAnswer(fault: SimulatorFault): UpstreamAnswer {
    if (fault === 'malformed') {
      const entries = symbols('none');
      return {
        status: 200,
        body: malformedBody((withoutAsk) => document(entries, withoutAsk), 'askPrice', malformedVariant++),
      };
    }
    return json(
      200,
      document(symbols(fault), (stats) => stats),
    );
  }

  /** The order book of one market: three sell and three buy orders around its ask and bid. */
  function depthAnswer(params: URLSearchParams, fault: SimulatorFault): UpstreamAnswer {
    const symbol = params.get('symbol') ?? '';
    const entry = symbols('none').find((market) => market.symbol === symbol);
    if (!entry) return failure(422, 'The selected symbol is invalid.');
    const stats = wallexMarket(quoteOf(symbol), symbol.endsWith('TMN') ? 'TMN' : 'USDT', '', fault)
      .stats as Entry;
    const level = (price: string, quantity: number, step: number) => {
      const value = Number(price) * (1 + step);
      return {
        price: step === 0 ? price : String(value),
        quantity: quantity.toFixed(6),
        sum: (value * quantity).toFixed(2),
      };
    };
    const ask = String(stats.askPrice);
    const bid = String(stats.bidPrice);
    return json(200, {
      result: {
        ask: [level(ask, 0.5, 0), level(ask, 1.2, 0.001), level(ask, 3, 0.002)],
        bid: [level(bid, 0.4, 0), level(bid, 1.1, -0.001), level(bid, 2.5, -0.002)],
      },
      message: 'عملیات موفقیت‌آمیز بود.',
      success: true,
    });
  }

  /** The quoted market behind a Wallex symbol: `USDTTMN`, `BTCTMN`, `BTCUSDT`. */
  function quoteOf(symbol: string) {
    if (symbol === 'USDTTMN') return tetherInToman(tether);
    const toman = symbol.endsWith('TMN');
    const base = symbol.slice(0, toman ? -3 : -4);
    const coin = coins.find((listed) => listed.symbol === base) as ListedCoin;
    return quoteIn(coin.symbol, coin.market, toman ? 'toman' : 'usdt', tether);
  }

  const failure = (status: number, message: string) => json(status, { result: {}, message, success: false });
  const errors = {
    rateLimited: (headers: Record<string, string>) => ({ ...failure(429, 'Too Many Attempts.'), headers }),
    unavailable: () => failure(503, 'Service Unavailable'),
    geoBlocked: () => failure(451, 'Unavailable For Legal Reasons'),
  };
  return {
    markets: { exchange: 'wallex', path: '/v1/markets', answer, ...errors },
    depth: { exchange: 'wallex', path: '/v1/depth', answer: depthAnswer, ...errors },
    setMarketsCondition(next) {
      if (next.kind === 'slow' && !(Number.isInteger(next.delayMs) && next.delayMs > 0)) {
        throw new Error('delayMs must be a positive integer');
      }
      condition = next;
    },
  };
}
