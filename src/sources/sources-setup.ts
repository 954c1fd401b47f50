import type { QuoteCurrency } from '../feeds/types.ts';
import type { SourceEntry } from './sources-schema.ts';

/** A source as the file declares it, with the secrets it names read from the environment. */
export type ConfiguredSource = SourceEntry & {
  /** Request headers carrying credentials (`x-api-key`, `headers_env`), values from the environment. */
  readonly secretHeaders: Readonly<Record<string, string>>;
};

/** Sources of one coin's price, per currency: the first is the primary, the rest fallbacks in order. */
export interface Routes {
  readonly usdt: readonly string[];
  /** Empty: sell_irt is derived as sell_usdt × usdt_irt. */
  readonly toman: readonly string[];
}

/** The validated sources configuration: the file's, or the built-in default. */
export interface SourcesSetup {
  /** Where it was read from, for messages: the file's path, or "built-in default". */
  readonly origin: string;
  /** In file order: the order `source` labels and `/v1/health` list them in. */
  readonly sources: readonly ConfiguredSource[];
  readonly defaultRoutes: Routes;
  /** Per-coin overrides: a currency given replaces the default's list for that coin. */
  readonly coinRoutes: ReadonlyMap<string, Partial<Routes>>;
  /** A source with no accepted quote of a coin for this long no longer serves that coin. */
  readonly staleMs: number;
  /** A coin returns to an earlier source once that one has been usable this long. */
  readonly returnAfterMs: number;
  /**
   * A source whose ask for a coin is further than this from the other sources' is flagged
   * (`sources check`, the collector's log and metrics); default `defaultMaxDeviationPct`.
   */
  readonly maxDeviationPct?: number;
}

export const defaultPollSeconds = 10;
export const defaultStaleSeconds = 120;
export const defaultReturnAfterSeconds = 300;
export const defaultMaxDeviationPct = 5;

/** Tether's catalog symbol: its toman price is usdt_irt, its tether price 1 by definition. */
export const tetherSymbol = 'USDT';

/** The routes of one coin: its overrides, else the default's. */
export function routesOf(setup: Pick<SourcesSetup, 'defaultRoutes' | 'coinRoutes'>, symbol: string): Routes {
  const own = setup.coinRoutes.get(symbol);
  return {
    usdt: own?.usdt ?? setup.defaultRoutes.usdt,
    toman: own?.toman ?? setup.defaultRoutes.toman,
  };
}

/** The currencies a source can quote coins in: Binance's spot pairs here are all in USDT. */
export function currenciesOf(source: SourceEntry): readonly QuoteCurrency[] {
  switch (source.kind) {
    case 'binance':
      return ['usdt'];
    case 'nobitex':
    case 'wallex':
      return ['usdt', 'toman'];
    case 'json-http': {
      const { mapping } = source;
      // The units the mapping declares; one that declares none is refused at load on its own
      // account, so its routes are not reported a second time.
      const named = mapping.currency
        ? [mapping.currency]
        : mapping.pair?.suffixes
          ? Object.values(mapping.pair.suffixes)
          : ['usdt', 'toman'];
      return (['usdt', 'toman'] as const).filter((currency) =>
        named.some((name) => name === currency || (currency === 'toman' && name === 'rial')),
      );
    }
  }
}
