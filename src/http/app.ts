import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import packageJson from '../../package.json' with { type: 'json' };
import type { Config } from '../config.ts';
import { KeyAuthenticator } from '../keys/authenticator.ts';
import { MemoryRateLimiter } from '../limiter/memory-limiter.ts';
import type { RateLimiter } from '../limiter/types.ts';
import type { Logger } from '../logger.ts';
import type { OpenedStore } from '../store/open-store.ts';
import type { ApiKeyStore, CollectorStatusStore, KeyRequestStore, SnapshotStore } from '../store/types.ts';
import { installAccessLog, requestIdOf } from './access-log.ts';
import { apiKeyGuard } from './api-key-guard.ts';
import { discoveryPlugin } from './discovery/plugin.ts';
import { assessHealth, type HealthReport } from './health-assessment.ts';
import {
  clientErrorHandler,
  connectHandler,
  expectationHandler,
  frameworkErrorHandler,
  installProblemHandlers,
} from './problem-handlers.ts';
import { lazyRequestLogger } from './request-logger.ts';
import { ResponseHeaders } from './response-headers.ts';
import { healthRoutes } from './routes/health.ts';
import { ratesRoutes } from './routes/rates.ts';
import { securityHeaders } from './security-headers.ts';
import { sitePlugin } from './site/plugin.ts';
import { SnapshotCache } from './snapshot-cache.ts';

export interface AppDeps {
  config: Config;
  logger: Logger;
  snapshots: SnapshotStore;
  collectorStatus: CollectorStatusStore;
  keys: ApiKeyStore;
  /** Key requests from the contact page. */
  keyRequests: KeyRequestStore;
  /** Per-key limiter; defaults to the in-memory one (one process). */
  limiter?: RateLimiter;
  /** Epoch milliseconds; tests pass a fake clock. */
  clock?: () => number;
  /** Poll period of the snapshot id and the key version (default 1 s). */
  pollMs?: number;
  /** How often key last-use times are written (default 30 s). */
  lastUseFlushMs?: number;
  /** Invalid keys per client address per rate window before key checks pause (default 30). */
  failureLimit?: number;
}

/** The stores `buildApp` reads, from one opened store (it keeps the collector status beside the snapshots). */
export function appStoresOf(
  store: OpenedStore,
): Pick<AppDeps, 'snapshots' | 'collectorStatus' | 'keys' | 'keyRequests'> {
  return {
    snapshots: store.snapshots,
    collectorStatus: store.snapshots,
    keys: store.keys,
    keyRequests: store.keyRequests,
  };
}

/** What route plugins (API, website, discovery) read, via `app.nerkh`. */
export interface NerkhContext {
  config: Config;
  clock: () => number;
  /** The served snapshot: `snapshots.current()` is null before the first commit. */
  snapshots: SnapshotCache;
  /** `/v1/health`'s judgement of the service right now. */
  health(): Promise<HealthReport>;
  /** package.json version, reported as `releaseId`. */
  releaseId: string;
  /** Headers every response carries; `sendPrepared` writes a response worked out in advance. */
  responseHeaders: ResponseHeaders;
  /** `onRequest` hook that enforces X-API-Key and the per-key rate limit (design §2). */
  requireApiKey: ReturnType<typeof apiKeyGuard>;
}

declare module 'fastify' {
  interface FastifyInstance {
    nerkh: NerkhContext;
  }
}

export type NerkhApp = FastifyInstance<
  Server,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** How long a cached collector report is reused, so unauthenticated health polls cannot load the store. */
const collectorStatusCacheMs = 1000;

/**
 * Builds the whole HTTP app and never listens (fastify/demo's app/server split): tests drive it
 * with `inject`, `server.ts` binds it to a port. Everything started here is stopped by
 * `app.close()` (onClose), which also flushes key last-use times; the stores stay the caller's.
 *
 * Route plugins registered here share one error shape (RFC 9457 problems from ./error-catalog.ts), one
 * access log, the security headers, and the OpenAPI document built by @fastify/swagger from their
 * route schemas (`app.swagger()`): only `/v1/...` routes are documented, with `/v1` as the server URL.
 */
export async function buildApp(deps: AppDeps): Promise<NerkhApp> {
  const { config, logger } = deps;
  const clock = deps.clock ?? Date.now;
  const pollMs = deps.pollMs ?? 1000;

  const app: NerkhApp = Fastify<Server, IncomingMessage, ServerResponse, FastifyBaseLogger>({
    loggerInstance: logger,
    // Fastify's own request log lines carry the raw URL, which may hold a key in its query; the
    // access log (./access-log.ts) writes a redacted one instead.
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
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.server.on('connect', connectHandler(config.publicUrl));
  app.server.on('checkExpectation', expectationHandler(config.publicUrl));

  const snapshots = new SnapshotCache({
    store: deps.snapshots,
    labels: {
      source: config.NERKH_SOURCE_LABEL,
      disclaimer: config.NERKH_DISCLAIMER,
      refreshSeconds: config.NERKH_REFRESH_SECONDS,
    },
    logger,
    pollMs,
  });
  // Loading the stored snapshot compresses its bodies on the thread pool: started now, it overlaps
  // with registering the routes below instead of adding to the start-up time.
  const firstSnapshot = snapshots.start();
  const authenticator = new KeyAuthenticator({
    store: deps.keys,
    logger,
    clock,
    pollMs,
    flushMs: deps.lastUseFlushMs ?? 30_000,
    validCacheSize: config.NERKH_KEY_CACHE_SIZE,
  });
  const windowMs = config.NERKH_RATE_WINDOW_SECONDS * 1000;
  const ownLimiter = deps.limiter === undefined ? new MemoryRateLimiter({ windowMs }) : null;
  const limiter = deps.limiter ?? (ownLimiter as MemoryRateLimiter);
  const failureLimiter = new MemoryRateLimiter({ windowMs });

  let collectorCache: {
    atMs: number;
    report: Awaited<ReturnType<CollectorStatusStore['getCollectorStatus']>>;
  } | null = null;
  const releaseId = packageJson.version;
  const health = async (): Promise<HealthReport> => {
    const nowMs = clock();
    if (collectorCache === null || nowMs - collectorCache.atMs >= collectorStatusCacheMs) {
      collectorCache = { atMs: nowMs, report: await deps.collectorStatus.getCollectorStatus() };
    }
    const view = snapshots.current();
    return assessHealth({
      snapshot: view ? { updated_at: view.snapshot.updated_at, count: view.snapshot.rates.length } : null,
      collector: collectorCache.report,
      nowMs,
      refreshSeconds: config.NERKH_REFRESH_SECONDS,
      releaseId,
    });
  };

  // Security headers (helmet defaults) with a CSP for a site that loads nothing from elsewhere and
  // runs no inline code. upgrade-insecure-requests is left to the TLS terminator's configuration:
  // on a plain-HTTP local run it would break every same-origin asset.
  const responseHeaders = new ResponseHeaders(
    securityHeaders({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          defaultSrc: ["'self'"],
          baseUri: ["'none'"],
          formAction: ["'self'"],
          frameAncestors: ["'none'"],
          imgSrc: ["'self'", 'data:'],
          objectSrc: ["'none'"],
          scriptSrc: ["'self'"],
          styleSrc: ["'self'"],
        },
      },
    }),
  );

  app.decorate('nerkh', {
    config,
    clock,
    snapshots,
    health,
    releaseId,
    responseHeaders,
    requireApiKey: apiKeyGuard({
      authenticator,
      limiter,
      failureLimiter,
      defaultLimit: config.NERKH_RATE_LIMIT,
      windowSeconds: config.NERKH_RATE_WINDOW_SECONDS,
      failureLimit: deps.failureLimit ?? 30,
      clock,
    }),
  });
  app.decorateRequest('apiKeyId', null);

  installProblemHandlers(app, config.publicUrl);
  installAccessLog(app, logger);

  responseHeaders.install(app);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'nerkh rates API',
        version: '1.0.0',
        description:
          "Current sell rates of digital currencies — what a user pays to buy a coin from the exchange — in tether (USDT) and in toman. Rates are informational; an order's final rate is fixed in the user panel.",
        termsOfService: `${config.publicUrl}/terms`,
        contact: { name: 'API keys and support', url: `${config.publicUrl}/contact` },
      },
      externalDocs: { description: 'API reference with examples', url: `${config.publicUrl}/docs` },
      tags: [
        { name: 'rates', description: 'Sell rates in tether and toman (API key required)' },
        { name: 'health', description: 'Freshness of the data and state of the sources (no key)' },
      ],
      servers: [{ url: `${config.publicUrl}/v1` }],
      components: {
        securitySchemes: {
          ApiKeyAuth: {
            type: 'apiKey',
            in: 'header',
            name: 'X-API-Key',
            description: 'Issued on request through the contact page; never send it in the query string.',
          },
        },
      },
    },
    // The document describes the versioned API only; aliases, the website and root discovery paths stay out.
    transform: ({ schema, url }) => ({
      schema: url.startsWith('/v1/') ? schema : { ...schema, hide: true },
      url,
    }),
  });

  await app.register(ratesRoutes, { prefix: '/v1' });
  await app.register(healthRoutes);

  // The website and the discovery documents read the same snapshot and health judgement as the API.
  const siteSettings = {
    publicUrl: config.publicUrl,
    disclaimer: config.NERKH_DISCLAIMER,
    sourceLabel: config.NERKH_SOURCE_LABEL,
    refreshSeconds: config.NERKH_REFRESH_SECONDS,
    rateLimit: config.NERKH_RATE_LIMIT,
    rateWindowSeconds: config.NERKH_RATE_WINDOW_SECONDS,
  };
  const currentSnapshot = () => snapshots.current()?.snapshot ?? null;
  await app.register(sitePlugin, {
    settings: siteSettings,
    currentSnapshot,
    health,
    keyRequests: deps.keyRequests,
    formSecret: config.NERKH_FORM_SECRET ?? randomBytes(32),
    clock,
  });
  await app.register(discoveryPlugin, { settings: siteSettings, currentSnapshot, health, clock });

  await firstSnapshot;
  await authenticator.start();
  app.addHook('onClose', async () => {
    snapshots.close();
    await authenticator.close();
    // A limiter passed in (shared, e.g. Redis) belongs to the caller, who closes it.
    await Promise.all([ownLimiter?.close(), failureLimiter.close()]);
  });

  return app;
}
