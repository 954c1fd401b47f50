import { randomBytes } from 'node:crypto';
import { Registry } from 'prom-client';
import packageJson from '../package.json' with { type: 'json' };
import { loadCatalog } from './catalog/catalog-file.ts';
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
import { SnapshotCache } from './http/snapshot/snapshot-cache.ts';
import { SnapshotPoll } from './http/snapshot/snapshot-poll.ts';
import type { NerkhApp } from './http/types.ts';
import { KeyRequestIntake } from './key-requests/key-request-intake.ts';
import { KeyRequestWebhook } from './key-requests/key-request-webhook.ts';
import { PendingKeyRequests } from './key-requests/pending-key-requests.ts';
import { KeyAuthenticator } from './keys/authenticator.ts';
import type { Limiters } from './limiter/limiters.ts';
import type { Logger } from './logger.ts';
import { HttpMetrics } from './metrics/http-metrics.ts';
import type { Probes } from './metrics/probes.ts';
import { sitePagesByLanguage } from './site/pages/site-pages.ts';
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
 * The API's part of the composition root (./service.ts, which opens the backends and calls
 * `wireApi`): constructs the services the API, the website and the discovery documents read, and
 * builds the app on them. The tests' apps are wired here too, the same way, without loading the
 * collector and the backends' drivers that the rest of ./service.ts brings.
 */

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
  /**
   * Aborted when the process starts to drain (service.ts): from then on every response closes its
   * connection, so keep-alive clients reconnect, through the balancer, to an instance that stays.
   */
  draining?: AbortSignal;
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
    deps.draining?.addEventListener('abort', () => responseHeaders.closeConnections(), { once: true });
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
