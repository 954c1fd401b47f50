import { hostname } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { appStoresOf, wireApi } from './api-wiring.ts';
import { loadCatalog } from './catalog/catalog-file.ts';
import { type Pipeline, type PipelineTuning, startPipeline } from './collector/pipeline.ts';
import type { Config } from './config.ts';
import type { Snapshot } from './domain/rates.ts';
import { listen } from './http/server.ts';
import type { NerkhApp } from './http/types.ts';
import { CollectorElection } from './leadership/collector-election.ts';
import { leadCollector } from './leadership/lead-collector.ts';
import type { Limiters } from './limiter/limiters.ts';
import { openLimiter } from './limiter/open-limiter.ts';
import type { Logger } from './logger.ts';
import { CollectorMetrics } from './metrics/collector-metrics.ts';
import { HttpMetrics } from './metrics/http-metrics.ts';
import { type MetricsServer, startMetricsServer } from './metrics/metrics-server.ts';
import { Probes } from './metrics/probes.ts';
import { countStoreErrors } from './metrics/store-errors.ts';
import { loadSources } from './sources/load-sources.ts';
import type { SourcesSetup } from './sources/sources-setup.ts';
import type { CollectorStatus } from './store/collector-status.ts';
import { openStore } from './store/open-store.ts';
import type { ChangeFeed, CollectorStatusStore, OpenedStore } from './store/types.ts';

/**
 * The composition root: the one place the backends are opened and the parts of nerkh are
 * constructed, put together, started and stopped. The commands (`serve`, `collect`, `demo`) only
 * parse their options and call `startService`. The API's services are constructed by `wireApi`
 * (./api-wiring.ts), which this root calls and the tests' apps use too, so both wire them alike.
 */

export const roles = ['all', 'api', 'collector'] as const;
export type Role = (typeof roles)[number];

interface ServiceOptions {
  config: Config;
  logger: Logger;
  role: Role;
  /** Collector timings (the demo shortens the first commit's grace period). */
  tuning?: PipelineTuning;
  /** The collector's sources; default NERKH_SOURCES_FILE's, or the built-in set-up (the demo passes its own). */
  sources?: SourcesSetup;
  /** How often the API polls the store for new snapshots and key changes (default 1 s). */
  apiPollMs?: number;
}

export interface RunningService {
  /** Base URL the API listens on; null for the collector role. */
  url: string | null;
  /** Where Prometheus scrapes this process (NERKH_METRICS_PORT); null when no metrics listener runs. */
  metricsUrl: string | null;
  store: OpenedStore;
  /**
   * The first step of a stop (docs/operations.md#shutdown): `/readyz` answers 503 from now on,
   * and an API keeps serving for NERKH_DRAIN_SECONDS, each response closing its connection, so
   * balancers take it out before its port closes. Resolves then, or at once when `cut` aborts.
   */
  drain(cut: AbortSignal): Promise<void>;
  /** Stops accepting, finishes in-flight requests, stops the collector, closes the backends. */
  stop(): Promise<void>;
}

/** The collector status store the API reads, answering with `live`'s report (writes still go to the store). */
function liveStatusOf(store: OpenedStore, live: () => CollectorStatus): CollectorStatusStore {
  return {
    putCollectorStatus: (status) => store.snapshots.putCollectorStatus(status),
    getCollectorStatus: async () => live(),
  };
}

/**
 * Starts the parts of nerkh a role needs: `all` = collector and API in one process;
 * `api` = API only, serving what a collector elsewhere commits to the same store; `collector` =
 * sources → collector → store only. On a store that several instances share (PostgreSQL), the
 * collector runs only while this instance holds the collector lease, and stands by otherwise.
 * The backends are opened first, so a configuration they refuse stops start-up before any source
 * is contacted. Whatever started is stopped again, in reverse order, if a later part fails.
 */
export async function startService({
  config,
  logger,
  role,
  tuning,
  sources,
  apiPollMs,
}: ServiceOptions): Promise<RunningService> {
  // Every role reads the catalog, so a bad one stops any of them at start: the collector prices
  // its coins, the API's website shows their English names.
  const listed = loadCatalog(config.NERKH_CATALOG);
  const catalog = role === 'api' ? null : listed;
  // A sources file with mistakes stops start-up before anything is opened, each mistake listed.
  const collectorSources = catalog === null ? null : (sources ?? loadSources(config, catalog));
  // One registry per service, never prom-client's global one: several services (tests, the demo)
  // may run in one process, each with its own figures.
  const registry = new Registry();
  const store = countStoreErrors(await openStore(config), registry);
  const instance = config.NERKH_INSTANCE_ID ?? `${hostname()}:${process.pid}`;
  logger.info({ role, db: store.location, instance }, 'store opened');
  let limiters: Limiters | null = null;
  let changes: ChangeFeed | null = null;
  let pipeline: Pipeline | null = null;
  let election: CollectorElection | null = null;
  let ownCollectorStatus: (() => CollectorStatus) | null = null;
  let app: NerkhApp | null = null;
  let metricsServer: MetricsServer | null = null;
  const draining = new AbortController();
  // The orchestrators' probes live on the operations listener, so only where it runs.
  const probes =
    config.NERKH_METRICS_PORT === undefined
      ? null
      : new Probes({ storeAnswers: () => store.snapshots.latestSnapshotId() });
  const stop = async () => {
    await metricsServer?.close();
    probes?.stop();
    await app?.close();
    await election?.stop();
    await pipeline?.stop();
    await changes?.close();
    await limiters?.close();
    await store.close();
  };
  try {
    // Only the API limits requests and caches what others commit: a collector needs neither.
    if (role !== 'collector') {
      limiters = await openLimiter(config, logger);
      changes = (await store.openChangeFeed?.(logger)) ?? null;
    }
    // In a process running both, the collector's commits reach the API in memory, at once.
    const ownCommits = new Set<(snapshot: Snapshot) => void>();
    const runsBoth = role === 'all';
    if (catalog !== null && collectorSources !== null) {
      const collectorMetrics = new CollectorMetrics(registry);
      const pipelineDeps = {
        config,
        catalog,
        sources: collectorSources,
        logger,
        metrics: collectorMetrics,
        ...(tuning ? { tuning } : {}),
        ...(runsBoth
          ? {
              onCommit: (snapshot: Snapshot) => {
                for (const listener of ownCommits) listener(snapshot);
              },
            }
          : {}),
      };
      const lease = store.collectorLease;
      if (lease === undefined) {
        // One process owns the store: its collector always leads.
        pipeline = await startPipeline({ ...pipelineDeps, store: store.snapshots });
        collectorMetrics.watchLeadership(() => true);
        const { collector } = pipeline;
        // This process's collector is the only one: health reads its report as it is now rather
        // than the stored copy, which a store that refuses writes (disk full, read-only) would
        // leave saying the last commit succeeded.
        ownCollectorStatus = () => collector.status();
      } else {
        election = new CollectorElection({
          lease,
          instance,
          ttlMs: config.NERKH_COLLECTOR_LEASE_SECONDS * 1000,
          logger,
          lead: (term, signal) => leadCollector(term, signal, { ...pipelineDeps, lease }),
        });
        const elected = election;
        collectorMetrics.watchLeadership(() => elected.leading);
        await election.start();
      }
    }
    let url: string | null = null;
    if (limiters !== null) {
      app = await wireApi({
        config,
        logger,
        catalog: listed,
        ...appStoresOf(store),
        ...(ownCollectorStatus === null ? {} : { collectorStatus: liveStatusOf(store, ownCollectorStatus) }),
        limiters,
        // The API's figures exist only where an API runs: a collector's scrape has none at 0.
        metrics: new HttpMetrics(registry),
        draining: draining.signal,
        ...(probes === null ? {} : { probes }),
        ...(changes === null ? {} : { changes }),
        ...(apiPollMs === undefined ? {} : { pollMs: apiPollMs }),
        ...(runsBoth
          ? {
              ownCommits: (listener: (snapshot: Snapshot) => void) => {
                ownCommits.add(listener);
                return () => ownCommits.delete(listener);
              },
            }
          : {}),
      });
      url = await listen(app, config.HOST, config.PORT);
    }
    if (config.NERKH_METRICS_PORT !== undefined) {
      collectDefaultMetrics({ register: registry });
      metricsServer = await startMetricsServer(
        registry,
        config.NERKH_METRICS_HOST,
        config.NERKH_METRICS_PORT,
        logger,
        probes ?? undefined,
      );
      logger.info({ url: metricsServer.url }, 'metrics listener started');
    }
    const drain = async (cut: AbortSignal) => {
      probes?.drain();
      draining.abort();
      // A collector has no port to drain.
      if (app === null || config.NERKH_DRAIN_SECONDS === 0) return;
      await delay(config.NERKH_DRAIN_SECONDS * 1000, undefined, { signal: cut }).catch(() => {});
    };
    return { url, metricsUrl: metricsServer?.url ?? null, store, drain, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
