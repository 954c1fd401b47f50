/**
 * Nobitex `GET /market/stats` (docs/sources.md, "Nobitex"): every simulated coin in its rial
 * (`btc-rls`) and tether (`btc-usdt`) market, and tether's own `usdt-rls` book, with Nobitex's
 * envelope (`status: "ok"`, and the deprecated `global` block of Binance prices the docs say is
 * still sent) and Nobitex's error bodies: a 429 says its wait in the body (`backOff`, seconds) and
 * sends no `Retry-After`. `srcCurrency` and `dstCurrency` are optional comma lists; absent means
 * every market. Rial prices are the coins' toman prices × 10 (`quoted-markets.ts`).
 *
 * A market's condition can be set apart from the faults (`setCondition`): `placeholders` answers
 * as Nobitex was recorded answering (`"latest": "0E-10"`, `"dayClose": "0E-10"`,
 * `"dayChange": "-100.00"`), `closed` marks the market `isClosed: true`.
 */
import { NOBITEX_CODES, nobitexCoinsPerQuote } from '../feeds/nobitex-markets.ts';
import type { SimulatorFault } from './faults.ts';
import { type HttpEndpoint, json, type UpstreamAnswer } from './http-endpoints.ts';
import type { TetherMarket } from './market.ts';
import { formatPrice, type ListedCoin, type Price, type QuotedMarket, quoteIn } from './quoted-markets.ts';
import { coinStats, malformedBody, tetherStats } from './wire.ts';

type Stats = Record<string, Record<string, unknown>>;

/** How a market answers, apart from the faults. */
export type NobitexCondition = 'normal' | 'placeholders' | 'closed';

export interface NobitexEndpoint extends HttpEndpoint {
  /** `markets` are `stats` keys (`btc-rls`, `usdt-rls`); none given: every market. */
  setCondition(condition: NobitexCondition, markets?: readonly string[]): void;
}

/** The placeholders Nobitex was recorded sending (test/fixtures/nobitex/README.md). */
function withCondition(stats: Record<string, unknown>, condition: NobitexCondition): Record<string, unknown> {
  switch (condition) {
    case 'placeholders':
      return { ...stats, latest: '0E-10', dayClose: '0E-10', dayChange: '-100.00' };
    case 'closed':
      return { ...stats, isClosed: true };
    default:
      return stats;
  }
}

/** A market's prices for a bundle of `coins` coins, exactly: ×coins, as many fewer decimals. */
function bundleOf(market: QuotedMarket, coins: number): QuotedMarket {
  if (coins === 1) return market;
  const fewer = Math.round(Math.log10(coins));
  const scale = (price: Price): Price => ({
    units: price.units * BigInt(coins),
    decimals: Math.max(0, price.decimals - fewer),
  });
  return {
    ...market,
    ask: scale(market.ask),
    bid: scale(market.bid),
    last: scale(market.last),
    open: scale(market.open),
    high: scale(market.high),
    low: scale(market.low),
    volume: market.volume / coins,
  };
}

/** The market stats of `coins` and of `tether`, the usdt-rls book. */
export function nobitex(coins: readonly ListedCoin[], tether: TetherMarket): NobitexEndpoint {
  /** Which corrupt body the `malformed` fault sends next. */
  let malformedVariant = 0;
  /** Conditions set per market; `everyMarket` applies where none is set. */
  const conditions = new Map<string, NobitexCondition>();
  let everyMarket: NobitexCondition = 'normal';
  const conditionOf = (key: string) => conditions.get(key) ?? everyMarket;

  function markets(params: URLSearchParams, fault: SimulatorFault): Stats {
    const wanted = (name: string, value: string) => {
      const list = params.get(name);
      return list === null || list.split(',').some((item) => item.trim().toLowerCase() === value);
    };
    const stats: Stats = {};
    const add = (key: string, entry: Record<string, unknown>) => {
      stats[key] = withCondition(entry, conditionOf(key));
    };
    if (wanted('srcCurrency', 'usdt') && wanted('dstCurrency', 'rls')) {
      add('usdt-rls', tetherStats(tether, fault));
    }
    for (const coin of coins) {
      // Nobitex's own code, and the bundle it prices: `1m_pepe` a million PEPE, `shib` a thousand.
      const src = NOBITEX_CODES[coin.symbol] ?? coin.symbol.toLowerCase();
      const bundle = nobitexCoinsPerQuote(src);
      if (!wanted('srcCurrency', src)) continue;
      if (wanted('dstCurrency', 'rls')) {
        add(
          `${src}-rls`,
          coinStats(bundleOf(quoteIn(coin.symbol, coin.market, 'rial', tether), bundle), fault),
        );
      }
      if (wanted('dstCurrency', 'usdt')) {
        add(
          `${src}-usdt`,
          coinStats(bundleOf(quoteIn(coin.symbol, coin.market, 'usdt', tether), bundle), fault),
        );
      }
    }
    return stats;
  }

  /** The deprecated `global.binance` block: each coin's last Binance price in tether, a JSON number. */
  function global(): Record<string, Record<string, number>> {
    const binance: Record<string, number> = {};
    for (const coin of coins) {
      binance[NOBITEX_CODES[coin.symbol] ?? coin.symbol.toLowerCase()] = Number(
        formatPrice(quoteIn(coin.symbol, coin.market, 'usdt', tether).last),
      );
    }
    binance.usdt = 1;
    return { binance };
  }

  function answer(params: URLSearchParams, fault: SimulatorFault): UpstreamAnswer {
    if (fault === 'malformed') {
      const stats = markets(params, 'none');
      const body = malformedBody(
        (withoutAsk) => ({
          status: 'ok',
          stats: Object.fromEntries(Object.entries(stats).map(([key, entry]) => [key, withoutAsk(entry)])),
          global: global(),
        }),
        'bestSell',
        malformedVariant++,
      );
      return { status: 200, body };
    }
    return json(200, { status: 'ok', stats: markets(params, fault), global: global() });
  }

  return {
    exchange: 'nobitex',
    path: '/market/stats',
    answer,
    // Nobitex's documented 429: the wait in `backOff` (seconds), no Retry-After header.
    rateLimited: (headers) => {
      const seconds = Number(headers['retry-after'] ?? 1);
      return json(429, {
        status: 'failed',
        code: 'TooManyRequests',
        message: `تعداد درخواست شما بیش از حد معمول تشخیص داده شده. لطفا ${seconds} ثانیه صبر نمایید.`,
        backOff: seconds,
        limit: 20,
      });
    },
    unavailable: () => json(503, { status: 'failed', message: 'Service Unavailable' }),
    geoBlocked: () =>
      json(451, {
        status: 'failed',
        code: 'UnavailableForLegalReasons',
        message: 'Unavailable for legal reasons',
      }),
    setCondition(condition, keys) {
      if (keys === undefined) {
        everyMarket = condition;
        conditions.clear();
        return;
      }
      for (const key of keys) {
        if (!/^[a-z0-9_]+-(?:rls|usdt)$/.test(key)) {
          throw new Error(`"${key}" is not a Nobitex market key like btc-rls`);
        }
        conditions.set(key, condition);
      }
    },
  };
}
