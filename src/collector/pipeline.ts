import type { Config } from '../config.ts';
import type { Catalog } from '../domain/catalog.ts';
import type { Snapshot } from '../domain/rates.ts';
import type { Feed } from '../feeds/types.ts';
import type { Logger } from '../logger.ts';
import { createFeed, type FeedTuning } from '../sources/create-feed.ts';
import { marketRequests } from '../sources/market-codes.ts';
import type { SourcesSetup } from '../sources/sources-setup.ts';
import type { CollectorStatusStore, PriceAcceptanceStore, SnapshotStore } from '../store/types.ts';
import { Collector, type CollectorOptions } from './collector.ts';

/**
 * Timings that default from the config, the sources file or the adapters; tests shorten them so
 * faults and recoveries play out in milliseconds instead of minutes.
 */
export interface PipelineTuning
  extends FeedTuning,
    Pick<
      CollectorOptions,
      | 'refreshMs'
      | 'statusIntervalMs'
      | 'firstCommitGraceMs'
      | 'sourceStaleMs'
      | 'jumpConfirmMs'
      | 'jumpConfirmTicks'
      | 'clock'
      | 'timers'
    > {}

export interface PipelineDeps {
  config: Config;
  catalog: Catalog;
  /** The sources file's set-up, or the built-in default. */
  sources: SourcesSetup;
  store: SnapshotStore & CollectorStatusStore & PriceAcceptanceStore;
  logger: Logger;
  tuning?: PipelineTuning;
  /**
   * Where the collector's commits, failovers and sources are measured (the composition root's
   * CollectorMetrics): it follows the collector from its start until the returned function is called.
   */
  metrics?: CollectorWatcher;
  /** Told of each snapshot the collector commits, as it commits it (the API of the same process). */
  onCommit?: (snapshot: Snapshot) => void;
}

/** Something that follows a running collector (its metrics) until told to stop. */
export interface CollectorWatcher {
  watch(collector: Collector): () => void;
}

export interface Pipeline {
  collector: Collector;
  /** Stops the feeds, then the collector; an in-flight commit finishes, no new one starts. */
  stop(): Promise<void>;
}

/**
 * Sources → collector → store (docs/architecture.md#flow-and-layout): a feed per configured source, each following what the
 * routes ask of it under the source's own market codes, feeding one Collector that commits on
 * schedule. The collector starts from the last committed snapshot, so a restart with a dead source
 * keeps serving known prices.
 */
export async function startPipeline(deps: PipelineDeps): Promise<Pipeline> {
  const { config, catalog, sources, store, logger, metrics, onCommit, tuning = {} } = deps;
  const {
    pollMs,
    minPollMs,
    pollTimeoutMs,
    pollBackoffMaxMs,
    binanceStallMs,
    backoffBaseMs,
    backoffMaxMs,
    refusedBackoffMaxMs,
    ...collectorTuning
  } = tuning;
  const feedTuning: FeedTuning = {
    pollMs,
    minPollMs,
    pollTimeoutMs,
    pollBackoffMaxMs,
    binanceStallMs,
    backoffBaseMs,
    backoffMaxMs,
    refusedBackoffMaxMs,
  };
  const collector = new Collector({
    ...collectorTuning,
    sources,
    catalog,
    config,
    store,
    logger: logger.child({ component: 'collector' }),
  });
  const unwatch = metrics?.watch(collector);
  const stopTelling =
    onCommit === undefined ? undefined : collector.onCommit((snapshot) => onCommit(snapshot));
  const previous = await store.latestSnapshot();
  if (previous) collector.seed(previous);

  const bySymbol = new Map(catalog.map((entry) => [entry.symbol, entry]));
  const wanted = collector.requests();
  const feeds: Feed[] = [];
  for (const source of sources.sources) {
    const markets = marketRequests(source, wanted.get(source.name) ?? [], bySymbol);
    // A source whose routes name only coins the catalog does not list has nothing to follow.
    if (markets.length === 0) continue;
    feeds.push(
      createFeed(source, markets, {
        listener: collector,
        logger: logger.child({ component: source.name }),
        tuning: feedTuning,
      }),
    );
  }
  collector.start();
  for (const feed of feeds) feed.start();
  logger.info(
    {
      sources: sources.origin,
      feeds: feeds.map((feed) => feed.source),
      coins: catalog.filter((entry) => entry.pair !== null).length,
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
        unwatch?.();
        stopTelling?.();
      })();
      return stopping;
    },
  };
}
