import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { collectDefaultMetrics, Registry } from 'prom-client';
import packageJson from '../package.json' with { type: 'json' };
import { loadCatalog } from './catalog/catalog-file.ts';
import { type Pipeline, type PipelineTuning, startPipeline } from './collector/pipeline.ts';
import type { Config } from './config.ts';
import type { Catalog } from './domain/catalog.ts';
import type { Snapshot } from './domain/rates.ts';
import { buildApp } from './http/app.ts';
import { apiKeyGuard } from './http/auth/api-key-guard.ts';
import { AccessLog } from './http/edge/access-log.ts';
import { clientAddressOf } from './http/edge/client-address.ts';
import { ResponseHeaders } from './http/edge/response-headers.ts';
import { serviceSecurityHeaders } from './http/edge/security-headers.ts';
import { currentHealth } from './http/health/current-health.ts';
import { RatesFastPath } from './http/rates/fast-path.ts';
import { listen } from './http/server.ts';
import { SnapshotCache } from './http/snapshot/snapshot-cache.ts';
import { SnapshotPoll } from './http/snapshot/snapshot-poll.ts';
import type { NerkhApp } from './http/types.ts';
import { KeyRequestIntake } from './key-requests/key-request-intake.ts';
import { KeyRequestWebhook } from './key-requests/key-request-webhook.ts';
import { PendingKeyRequests } from './key-requests/pending-key-requests.ts';
import { KeyAuthenticator } from './keys/authenticator.ts';
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
import { sitePagesByLanguage } from './site/pages/site-pages.ts';
import { loadSources } from './sources/load-sources.ts';
import type { SourcesSetup } from './sources/sources-setup.ts';
import type { CollectorStatus } from './store/collector-status.ts';
import { openStore } from './store/open-store.ts';
import type {
  ApiKeyStore,
  ChangeFeed,
  CollectorLease,
  CollectorStatusStore,
  KeyRequestStore,
  OpenedStore,
  SnapshotStore,
} from './store/types.ts';

/**
 * The composition root: the one place the backends are opened and the parts of nerkh are
 * constructed, put together, started and stopped. The commands (`serve`, `collect`, `demo`) only
 * parse their options and call `startService`; tests build the API with `wireApi`, the same wiring
 * the service uses, on stores of their own.
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
  /** Stops accepting, finishes in-flight requests, stops the collector, closes the backends. */
  stop(): Promise<void>;
}

/** The stores `wireApi` reads, from one opened store (it keeps the collector status beside the snapshots). */
export function appStoresOf(
  store: OpenedStore,
): Pick<ApiDeps, 'snapshots' | 'collectorStatus' | 'keys' | 'keyRequests' | 'collectorLease'> {
  return {
    snapshots: store.snapshots,
    collectorStatus: store.snapshots,
    keys: store.keys,
    keyRequests: store.keyRequests,
    ...(store.collectorLease === undefined ? {} : { collectorLease: store.collectorLease }),
  };
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
    return { url, metricsUrl: metricsServer?.url ?? null, store, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** What the API is wired from: the configuration, the opened backends, and the test hooks. */
export interface ApiDeps {
  config: Config;
  logger: Logger;
  /** The listed coins, for the website's English names; read from `NERKH_CATALOG` when not given. */
  catalog?: Catalog;
  snapshots: SnapshotStore;
  collectorStatus: CollectorStatusStore;
  keys: ApiKeyStore;
  /** Key requests from the contact page. */
  keyRequests: KeyRequestStore;
  /** The per-key and invalid-key limiters (`openLimiter`); the caller closes them after the app. */
  limiters: Limiters;
  /**
   * Changes other processes commit, heard at once (`OpenedStore.openChangeFeed`); the caller closes
   * it after the app. Without it, snapshots and key changes are learned by polling alone.
   */
  changes?: ChangeFeed;
  /**
   * Subscribes to the snapshots this process's own collector commits (a process running both), so
   * the API serves each at once rather than at its next poll; returns the unsubscribe function.
   */
  ownCommits?: (listener: (snapshot: Snapshot) => void) => () => void;
  /** The lease electing the collector, for `/v1/health` to say which instance leads (PostgreSQL). */
  collectorLease?: Pick<CollectorLease, 'leader'>;
  /**
   * Where the API records its metrics (the service's registry); default a registry of its own
   * that nobody scrapes.
   */
  metrics?: HttpMetrics;
  /** The orchestrators' probes on the operations listener: ready once the app has a snapshot. */
  probes?: Pick<Probes, 'watchSnapshot'>;
  /** Epoch milliseconds; tests pass a fake clock. */
  clock?: () => number;
  /** Poll period of the snapshot id and the key version (default 1 s). */
  pollMs?: number;
  /** How often key last-use times are written (default 30 s). */
  lastUseFlushMs?: number;
  /** How often the pending key requests are counted in the store (default 15 s). */
  keyRequestsPollMs?: number;
  /** Invalid keys per client address per rate window before key checks pause (default 30). */
  failureLimit?: number;
  /**
   * Whether the rates fast path (http/rates/fast-path.ts) answers the common keyed request ahead of
   * Fastify (default true); tests turn it off to send the same requests through the route alone.
   */
  ratesFastPath?: boolean;
}

/**
 * Constructs the API's services (the served snapshot and its poll, the key check, the limits,
 * key requests, health, the website's pages, metrics), builds the app on them (http/app.ts) and
 * starts them; never listens. Everything started here is stopped by `app.close()` (onClose), which
 * also flushes key last-use times; the stores and limiters stay the caller's.
 */
export async function wireApi(deps: ApiDeps): Promise<NerkhApp> {
  const { config, logger } = deps;
  const clock = deps.clock ?? Date.now;
  const pollMs = deps.pollMs ?? 1000;

  const snapshots = new SnapshotCache({
    labels: {
      ...(config.NERKH_SOURCE_LABEL === undefined ? {} : { source: config.NERKH_SOURCE_LABEL }),
      disclaimer: config.NERKH_DISCLAIMER,
      refreshSeconds: config.NERKH_REFRESH_SECONDS,
    },
    logger,
  });
  const snapshotPoll = new SnapshotPoll({ store: deps.snapshots, cache: snapshots, logger, pollMs });
  // The collector of this process hands its commits over in memory; the poll (and the change feed)
  // stay for the commits of the others.
  const stopOwnCommits = deps.ownCommits?.((snapshot) => void snapshots.offer(snapshot));
  // Loading the stored snapshot compresses its bodies on the thread pool: started now, it overlaps
  // with building the app and registering its routes instead of adding to the start-up time.
  const firstSnapshot = snapshotPoll.start();
  let app: NerkhApp | null = null;
  // A start that fails after this point must not leave the snapshot poll (or anything else
  // started here) running against a store the caller is about to close.
  try {
    const authenticator = new KeyAuthenticator({
      store: deps.keys,
      logger,
      clock,
      pollMs,
      flushMs: deps.lastUseFlushMs ?? 30_000,
      validCacheSize: config.NERKH_KEY_CACHE_SIZE,
    });
    const { requests: limiter, failedKeys } = deps.limiters;
    const metrics = deps.metrics ?? new HttpMetrics(new Registry());
    // Key requests waiting for the operator, and the webhook told of each new one
    // (docs/operations.md#key-requests).
    const pendingKeyRequests = new PendingKeyRequests({
      store: deps.keyRequests,
      logger,
      ...(deps.keyRequestsPollMs === undefined ? {} : { pollMs: deps.keyRequestsPollMs }),
    });
    const webhook =
      config.NERKH_REQUESTS_WEBHOOK_URL === undefined
        ? undefined
        : new KeyRequestWebhook({ url: config.NERKH_REQUESTS_WEBHOOK_URL, logger });
    const formSecret = config.NERKH_FORM_SECRET ?? randomBytes(32);
    // The contact form's store side: 5 requests per client network per hour (docs/architecture.md#the-website).
    const keyRequests = new KeyRequestIntake({
      store: deps.keyRequests,
      secret: formSecret,
      requestsPerHour: 5,
      clock,
      announce: (request) => {
        void pendingKeyRequests.refresh();
        webhook?.send(request);
      },
    });

    // The API, the website and the discovery documents read the same snapshot and health judgement.
    const currentSnapshot = () => snapshots.current()?.snapshot ?? null;
    const health = currentHealth({
      collectorStatus: deps.collectorStatus,
      ...(deps.collectorLease === undefined ? {} : { collectorLease: deps.collectorLease }),
      sharedLimits: () => deps.limiters.sharedState?.(),
      currentSnapshot,
      clock,
      refreshSeconds: config.NERKH_REFRESH_SECONDS,
      releaseId: packageJson.version,
    });
    const pages = sitePagesByLanguage({
      catalog: deps.catalog ?? loadCatalog(config.NERKH_CATALOG),
      settings: {
        publicUrl: config.publicUrl,
        disclaimer: config.NERKH_DISCLAIMER,
        sourceLabel: config.NERKH_SOURCE_LABEL,
        refreshSeconds: config.NERKH_REFRESH_SECONDS,
        rateLimit: config.NERKH_RATE_LIMIT,
        rateWindowSeconds: config.NERKH_RATE_WINDOW_SECONDS,
      },
      currentSnapshot,
      history: deps.snapshots,
      health,
      clock,
    });
    const responseHeaders = new ResponseHeaders(serviceSecurityHeaders());
    const requireApiKey = apiKeyGuard({
      authenticator,
      limiter,
      failedKeys,
      defaultLimit: config.NERKH_RATE_LIMIT,
      windowSeconds: config.NERKH_RATE_WINDOW_SECONDS,
      failureLimit: deps.failureLimit ?? 30,
      clock,
      metrics,
    });
    deps.probes?.watchSnapshot(currentSnapshot);
    metrics.watch({
      currentSnapshot,
      keyCache: () => authenticator.cacheCounts(),
      limiters: deps.limiters,
      pendingKeyRequests: () => pendingKeyRequests.count(),
      clock,
    });
    const accessLog = new AccessLog(logger, metrics);
    const fastPath =
      deps.ratesFastPath === false
        ? undefined
        : new RatesFastPath({
            snapshots,
            authenticator,
            limiter,
            failedKeys,
            defaultLimit: config.NERKH_RATE_LIMIT,
            windowSeconds: config.NERKH_RATE_WINDOW_SECONDS,
            clock,
            clientAddress: clientAddressOf(config.trustProxy),
            responseHeaders,
            accessLog,
            metrics,
            logger,
          });

    const built = await buildApp({
      config,
      logger,
      snapshots,
      requireApiKey,
      health,
      pages,
      keyRequests,
      formSecret,
      accessLog,
      responseHeaders,
      ...(fastPath === undefined ? {} : { fastPath }),
      version: packageJson.version,
      clock,
    });
    app = built;

    await firstSnapshot;
    await authenticator.start();
    await pendingKeyRequests.start();
    // A change heard of is read at once; the polls stay, so a feed that goes quiet costs a poll period.
    // An approved key request issues a key: the pending count is read again then too.
    const unsubscribe = [
      deps.changes?.onChange('snapshot', () => void snapshotPoll.refresh()),
      deps.changes?.onChange('keys', () => {
        void authenticator.pollVersion();
        void pendingKeyRequests.refresh();
      }),
    ];
    built.addHook('onClose', async () => {
      for (const stopListening of unsubscribe) stopListening?.();
      stopOwnCommits?.();
      snapshotPoll.close();
      snapshots.close();
      pendingKeyRequests.close();
      await Promise.all([authenticator.close(), webhook?.close()]);
    });
    return built;
  } catch (error) {
    stopOwnCommits?.();
    snapshotPoll.close();
    snapshots.close();
    // Its failure, if it failed too, is not the one to report.
    firstSnapshot.catch(() => {});
    await app?.close().catch(() => {});
    throw error;
  }
}
