import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, LogController } from 'fastify';
import { Registry } from 'prom-client';
import packageJson from '../../package.json' with { type: 'json' };
import { loadCatalog } from '../catalog/catalog-file.ts';
import type { Config } from '../config.ts';
import type { Catalog } from '../domain/catalog.ts';
import type { Snapshot } from '../domain/rates.ts';
import { KeyRequestWebhook } from '../key-requests/key-request-webhook.ts';
import { PendingKeyRequests } from '../key-requests/pending-key-requests.ts';
import { KeyAuthenticator } from '../keys/authenticator.ts';
import type { Limiters } from '../limiter/limiters.ts';
import type { Logger } from '../logger.ts';
import { HttpMetrics } from '../metrics/http-metrics.ts';
import type { Probes } from '../metrics/probes.ts';
import { sitePagesByLanguage } from '../site/pages/site-pages.ts';
import { sitePlugin } from '../site/plugin.ts';
import type {
  ApiKeyStore,
  ChangeFeed,
  CollectorLease,
  CollectorStatusStore,
  KeyRequestStore,
  SnapshotStore,
} from '../store/types.ts';
import {
  clientErrorHandler,
  connectHandler,
  expectationHandler,
  frameworkErrorHandler,
  installProblemHandlers,
} from '../web/problem-handlers.ts';
import { apiKeyGuard } from './auth/api-key-guard.ts';
import { behindApiKey } from './auth/behind-api-key.ts';
import { openApiOptions } from './discovery/openapi.ts';
import { discoveryPlugin } from './discovery/plugin.ts';
import { AccessLog, requestIdOf } from './edge/access-log.ts';
import { clientAddressOf } from './edge/client-address.ts';
import { lazyRequestLogger } from './edge/request-logger.ts';
import { ResponseHeaders } from './edge/response-headers.ts';
import { serviceSecurityHeaders } from './edge/security-headers.ts';
import { currentHealth } from './health/current-health.ts';
import { healthRoutes } from './health/route.ts';
import { mcpRoutes } from './mcp/route.ts';
import { RatesFastPath } from './rates/fast-path.ts';
import { ratesRoutes } from './rates/route.ts';
import { SnapshotCache } from './snapshot/snapshot-cache.ts';
import { SnapshotPoll } from './snapshot/snapshot-poll.ts';
import type { NerkhApp } from './types.ts';

export interface AppDeps {
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
   * Where the app records its metrics (the composition root's registry); default a registry of
   * its own that nobody scrapes.
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
   * Whether the rates fast path (./rates/fast-path.ts) answers the common keyed request ahead of
   * Fastify (default true); tests turn it off to send the same requests through the route alone.
   */
  ratesFastPath?: boolean;
}

/**
 * Builds the whole HTTP app and never listens (fastify/demo's app/server split): tests drive it
 * with `inject`, `server.ts` binds it to a port. Everything started here is stopped by
 * `app.close()` (onClose), which also flushes key last-use times; the stores stay the caller's.
 *
 * Route plugins registered here share one error shape (RFC 9457 problems from ../web/error-catalog.ts),
 * one access log, the security headers, and the OpenAPI document built from their route schemas
 * (./discovery/openapi.ts).
 *
 * Each route plugin gets what it reads as its own typed plugin options, never from an app-wide
 * decorator: a decorator is declared on every FastifyInstance type, so it type-checks in an app
 * that never set it, while an option left out of a `register` call is a compile error, and each
 * plugin's options say exactly what it depends on.
 */
export async function buildApp(deps: AppDeps): Promise<NerkhApp> {
  const { config, logger } = deps;
  const clock = deps.clock ?? Date.now;
  const pollMs = deps.pollMs ?? 1000;

  const app: NerkhApp = Fastify<Server, IncomingMessage, ServerResponse, FastifyBaseLogger>({
    loggerInstance: logger,
    // Fastify's own request log lines carry the raw URL, which may hold a key in its query; the
    // access log (./edge/access-log.ts) writes a redacted one instead.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'req_id' }),
    genReqId: requestIdOf,
    childLoggerFactory: lazyRequestLogger,
    requestIdHeader: false,
    trustProxy: config.trustProxy,
    clientErrorHandler: clientErrorHandler(config.publicUrl),
    frameworkErrors: frameworkErrorHandler(config.publicUrl),
    // While closing, requests on open connections are still answered (graceful shutdown); Fastify's
    // default 503 for them would not be a problem document.
    return503OnClosing: false,
    bodyLimit: 64 * 1024,
    // Ajv compiles the JSON Schema meta-schema to check each route schema against it before
    // compiling the schema itself, on every start (docs/decisions/0027-no-meta-schema-no-serializers.md).
    // Its strict mode still refuses a malformed schema without it (an unknown keyword, a wrong
    // type, a keyword value of the wrong type), and the OpenAPI document made of the same schemas
    // is validated in tests.
    ajv: { customOptions: { validateSchema: false } },
    // The timeouts and caps that keep slow or idle clients from holding the server
    // (docs/operations.md#timeouts-and-connection-caps).
    http: {
      headersTimeout: config.NERKH_HEADERS_TIMEOUT_MS,
      requestTimeout: config.NERKH_REQUEST_TIMEOUT_MS,
      // Node looks for connections past those timeouts this often (default 30 s, which would let a
      // slow-header connection live up to 30 s past its timeout).
      connectionsCheckingInterval: 1000,
    },
    requestTimeout: config.NERKH_REQUEST_TIMEOUT_MS,
    keepAliveTimeout: config.NERKH_KEEP_ALIVE_TIMEOUT_MS,
    maxRequestsPerSocket: config.NERKH_MAX_REQUESTS_PER_SOCKET,
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.server.maxConnections = config.NERKH_MAX_CONNECTIONS;
  app.server.on('connect', connectHandler(config.publicUrl));
  app.server.on('checkExpectation', expectationHandler(config.publicUrl));

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
  // with registering the routes below instead of adding to the start-up time.
  const firstSnapshot = snapshotPoll.start();
  // A start that fails after this point must not leave the snapshot poll (or anything else the
  // app started) running against a store the caller is about to close.
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

    app.decorateRequest('apiKeyId', null);
    installProblemHandlers(app, config.publicUrl);
    // The routes' response schemas document what is sent (OpenAPI); nothing is serialized through
    // them: the rates are precomputed bytes, health and problems are sent as strings. Building
    // Fastify's serializers for them would only add to every start (health's above all;
    // docs/decisions/0027-no-meta-schema-no-serializers.md), so plain JSON stands in, for every
    // route registered below.
    app.setSerializerCompiler(() => (data) => JSON.stringify(data));
    const accessLog = new AccessLog(logger, metrics);
    accessLog.install(app);
    responseHeaders.install(app);
    await app.register(swagger, openApiOptions(config.publicUrl));

    await app.register(behindApiKey, {
      prefix: '/v1',
      requireApiKey,
      routes: (api) => api.register(ratesRoutes, { snapshots, clock, responseHeaders }),
    });
    await app.register(healthRoutes, { health });
    // MCP over Streamable HTTP: the same two operations, asked in-process (./mcp/route.ts).
    await app.register(mcpRoutes, {
      publicUrl: config.publicUrl,
      inject: (options) => app.inject(options),
      version: packageJson.version,
      clock,
    });
    await app.register(sitePlugin, {
      pages,
      keyRequests: deps.keyRequests,
      formSecret: config.NERKH_FORM_SECRET ?? randomBytes(32),
      clock,
      announce: (request) => {
        void pendingKeyRequests.refresh();
        webhook?.send(request);
      },
    });
    await app.register(discoveryPlugin, { pages: pages.en });

    if (deps.ratesFastPath !== false) {
      new RatesFastPath({
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
      }).installOn(app.server);
    }

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
    app.addHook('onClose', async () => {
      for (const stopListening of unsubscribe) stopListening?.();
      stopOwnCommits?.();
      snapshotPoll.close();
      snapshots.close();
      pendingKeyRequests.close();
      await Promise.all([authenticator.close(), webhook?.close()]);
    });
  } catch (error) {
    stopOwnCommits?.();
    snapshotPoll.close();
    snapshots.close();
    // Its failure, if it failed too, is not the one to report.
    firstSnapshot.catch(() => {});
    await app.close().catch(() => {});
    throw error;
  }
  return app;
}
