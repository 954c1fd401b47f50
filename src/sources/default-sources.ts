import type { Config } from '../config.ts';
import {
  defaultReturnAfterSeconds,
  defaultStaleSeconds,
  type SourcesSetup,
  tetherSymbol,
} from './sources-setup.ts';

/**
 * The set-up without a sources file: every coin's tether price from the Binance stream, with
 * Nobitex's tether markets behind it for every coin, and tether's toman price from Nobitex; toman
 * prices derived from both. Binance refuses servers in Iran and Nobitex expects Iranian addresses
 * (docs/sources.md, "The default set-up"), so a fresh install publishes every coin wherever one of
 * the two answers. `sources/binance-nobitex.yaml` is the same set-up written as a file.
 */
export function builtInSources(
  config: Pick<
    Config,
    'NERKH_BINANCE_WS_URL' | 'NERKH_BINANCE_REST_URL' | 'NERKH_NOBITEX_URL' | 'NERKH_NOBITEX_POLL_SECONDS'
  >,
): SourcesSetup {
  return {
    origin: 'built-in default',
    sources: [
      {
        name: 'binance',
        kind: 'binance',
        url: config.NERKH_BINANCE_WS_URL,
        rest_url: config.NERKH_BINANCE_REST_URL,
        secretHeaders: {},
      },
      {
        name: 'nobitex',
        kind: 'nobitex',
        url: config.NERKH_NOBITEX_URL,
        poll_seconds: config.NERKH_NOBITEX_POLL_SECONDS,
        secretHeaders: {},
      },
    ],
    defaultRoutes: { usdt: ['binance', 'nobitex'], toman: [] },
    coinRoutes: new Map([[tetherSymbol, { toman: ['nobitex'] }]]),
    staleMs: defaultStaleSeconds * 1000,
    returnAfterMs: defaultReturnAfterSeconds * 1000,
  };
}
