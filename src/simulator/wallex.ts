/**
 * Wallex `GET /v1/markets` (https://api-docs.wallex.ir, "List of market and status"): every
 * simulated coin in a toman (`BTCTMN`) and a tether (`BTCUSDT`) market, and tether's `USDTTMN`,
 * in one document, with Wallex's `{success, message, result}` envelope. `TMN` prices are the
 * coins' toman prices (`quoted-markets.ts`): what `askPrice` says is what nerkh publishes.
 */
import type { SimulatorFault } from './faults.ts';
import { type HttpEndpoint, json, type UpstreamAnswer } from './http-endpoints.ts';
import type { TetherMarket } from './market.ts';
import { type ListedCoin, quoteIn, tetherInToman } from './quoted-markets.ts';
import { malformedBody, wallexMarket } from './wire.ts';

type Entry = Record<string, unknown>;

const OK_MESSAGE = 'The operation was successful';

export function wallex(
  coins: readonly ListedCoin[],
  tether: TetherMarket,
  tetherNameFa: string,
): HttpEndpoint {
  /** Which corrupt body the `malformed` fault sends next. */
  let malformedVariant = 0;

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

  const failure = (status: number, message: string) => json(status, { result: {}, message, success: false });
  return {
    exchange: 'wallex',
    path: '/v1/markets',
    answer,
    rateLimited: (headers) => ({ ...failure(429, 'Too Many Attempts.'), headers }),
    unavailable: () => failure(503, 'Service Unavailable'),
    geoBlocked: () => failure(451, 'Unavailable For Legal Reasons'),
  };
}
