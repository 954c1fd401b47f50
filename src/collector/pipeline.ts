import type { Config } from '../config.ts';
import type { Catalog } from '../domain/catalog.ts';
import { BinanceFeed } from '../feeds/binance.ts';
import { NobitexFeed } from '../feeds/nobitex.ts';
import type { Feed, MarketRequest } from '../feeds/types.ts';
import type { Logger } from '../logger.ts';
import type { CollectorStatusStore, SnapshotStore } from '../store/types.ts';
import { Collector, type CollectorOptions } from './collector.ts';

/**
 * Timings that default from the config or the adapters; tests shorten them so faults and
 * recoveries play out in milliseconds instead of minutes.
 */
export interface PipelineTuning
  extends Pick<
    CollectorOptions,
    | 'refreshMs'
    | 'statusIntervalMs'
    | 'firstCommitGraceMs'
    | 'sourceStaleMs'
    | 'jumpConfirmMs'
    | 'jumpConfirmTicks'
    | 'clock'
    | 'timers'
  > {
  /** Default NERKH_NOBITEX_POLL_SECONDS. */
  nobitexPollMs?: number;
  /** Floor of the poll interval (Nobitex's 20 requests/min); lowered only against a simulator. */
  nobitexMinPollMs?: number;
  nobitexTimeoutMs?: number;
  nobitexBackoffMaxMs?: number;
  binanceStallMs?: number;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
}

export interface PipelineDeps {
  config: Config;
  catalog: Catalog;
  store: SnapshotStore & CollectorStatusStore;
  logger: Logger;
  tuning?: PipelineTuning;
}

export interface Pipeline {
  collector: Collector;
  /** Stops the feeds, then the collector; an in-flight commit finishes, no new one starts. */
  stop(): Promise<void>;
}

/**
 * Sources → collector → store (design §7): the Binance stream for every catalog pair and the
 * Nobitex tether poll, feeding one Collector that commits on schedule. The collector starts from
 * the last committed snapshot, so a restart with a dead source keeps serving known prices.
 */
export async function startPipeline(deps: PipelineDeps): Promise<Pipeline> {
  const { config, catalog, store, logger, tuning = {} } = deps;
  const {
    nobitexPollMs,
    nobitexMinPollMs,
    nobitexTimeoutMs,
    nobitexBackoffMaxMs,
    binanceStallMs,
    backoffBaseMs,
    backoffMaxMs,
    ...collectorTuning
  } = tuning;
  const collector = new Collector({
    ...collectorTuning,
    // The feeds started below, so /v1/health lists each one before it first connects.
    sources: ['binance', 'nobitex'],
    catalog,
    config,
    store,
    logger: logger.child({ component: 'collector' }),
  });
  const previous = await store.latestSnapshot();
  if (previous) collector.seed(previous);

  const coinMarkets: MarketRequest[] = catalog.flatMap((entry) =>
    entry.pair === null ? [] : [{ symbol: entry.symbol, currency: 'usdt', market: entry.pair }],
  );
  const feeds: Feed[] = [
    new BinanceFeed({
      name: 'binance',
      url: config.NERKH_BINANCE_WS_URL,
      restUrl: config.NERKH_BINANCE_REST_URL,
      markets: coinMarkets,
      listener: collector,
      logger: logger.child({ component: 'binance' }),
      stallMs: binanceStallMs,
      backoffBaseMs,
      backoffMaxMs,
    }),
    new NobitexFeed({
      name: 'nobitex',
      url: config.NERKH_NOBITEX_URL,
      markets: [{ symbol: 'USDT', currency: 'toman', market: 'usdt' }],
      pollMs: nobitexPollMs ?? config.NERKH_NOBITEX_POLL_SECONDS * 1000,
      listener: collector,
      logger: logger.child({ component: 'nobitex' }),
      timeoutMs: nobitexTimeoutMs,
      minPollMs: nobitexMinPollMs,
      backoffMaxMs: nobitexBackoffMaxMs,
    }),
  ];
  collector.start();
  for (const feed of feeds) feed.start();
  logger.info(
    {
      coins: coinMarkets.length,
      refresh_seconds: (tuning.refreshMs ?? config.NERKH_REFRESH_SECONDS * 1000) / 1000,
    },
    'collector pipeline started',
  );

  let stopping: Promise<void> | null = null;
  return {
    collector,
    stop() {
      stopping ??= (async () => {
        await Promise.all(feeds.map((feed) => feed.stop()));
        await collector.stop();
        await collector.writeStatus();
      })();
      return stopping;
    },
  };
}
