import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, LogController, type onRequestHookHandler } from 'fastify';
import type { Config } from '../config.ts';
import type { KeyRequestIntake } from '../key-requests/key-request-intake.ts';
import type { Logger } from '../logger.ts';
import type { PagesByLanguage } from '../site/pages/site-pages.ts';
import { sitePlugin } from '../site/plugin.ts';
import type { HealthReport } from '../web/health-report.ts';
import {
  clientErrorHandler,
  connectHandler,
  expectationHandler,
  frameworkErrorHandler,
  installProblemHandlers,
} from '../web/problem-handlers.ts';
import { behindApiKey } from './auth/behind-api-key.ts';
import { openApiOptions } from './discovery/openapi.ts';
import { discoveryPlugin } from './discovery/plugin.ts';
import { type AccessLog, requestIdOf } from './edge/access-log.ts';
import { endConnectionsAtClose } from './edge/connections-at-close.ts';
import { lazyRequestLogger } from './edge/request-logger.ts';
import type { ResponseHeaders } from './edge/response-headers.ts';
import { healthRoutes } from './health/route.ts';
import { mcpRoutes } from './mcp/route.ts';
import type { RatesFastPath } from './rates/fast-path.ts';
import { ratesRoutes } from './rates/route.ts';
import type { SnapshotCache } from './snapshot/snapshot-cache.ts';
import type { NerkhApp } from './types.ts';

/** What the app's plugins read, built and started by the composition root (`wireApi` in ../service.ts). */
export interface AppDeps {
  config: Config;
  logger: Logger;
  /** The served snapshot's encoded views. */
  snapshots: SnapshotCache;
  /** The key check and per-key rate limit of every `/v1` route (./auth/api-key-guard.ts). */
  requireApiKey: onRequestHookHandler;
  /** The health judgement `/v1/health`, the status page and the discovery documents share. */
  health: () => Promise<HealthReport>;
  /** The website's pages in every language. */
  pages: PagesByLanguage;
  /** Stores the contact page's key requests for the operator. */
  keyRequests: KeyRequestIntake;
  /** Key of the contact form's tokens. */
  formSecret: string | Buffer;
  accessLog: AccessLog;
  responseHeaders: ResponseHeaders;
  /** Answers the common keyed rates request ahead of Fastify (./rates/fast-path.ts); without it, the routes answer all. */
  fastPath?: RatesFastPath;
  /** The release, the MCP server's version. */
  version: string;
  /** Epoch milliseconds; tests pass a fake clock. */
  clock: () => number;
}

/**
 * Builds the HTTP app from parts the composition root made, and never listens (fastify/demo's
 * app/server split): tests drive it with `inject`, `server.ts` binds it to a port. It only
 * registers the API, the website and the discovery documents; what they read is passed in.
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
  const { config, logger, snapshots, pages, responseHeaders, clock } = deps;
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
  endConnectionsAtClose(app);

  try {
    app.decorateRequest('apiKeyId', null);
    installProblemHandlers(app, config.publicUrl);
    // The routes' response schemas document what is sent (OpenAPI); nothing is serialized through
    // them: the rates are precomputed bytes, health and problems are sent as strings. Building
    // Fastify's serializers for them would only add to every start (health's above all;
    // docs/decisions/0027-no-meta-schema-no-serializers.md), so plain JSON stands in, for every
    // route registered below.
    app.setSerializerCompiler(() => (data) => JSON.stringify(data));
    deps.accessLog.install(app);
    responseHeaders.install(app);
    await app.register(swagger, openApiOptions(config.publicUrl));

    await app.register(behindApiKey, {
      prefix: '/v1',
      requireApiKey: deps.requireApiKey,
      routes: (api) => api.register(ratesRoutes, { snapshots, clock, responseHeaders }),
    });
    await app.register(healthRoutes, { health: deps.health });
    // MCP over Streamable HTTP: the same two operations, asked in-process (./mcp/route.ts).
    await app.register(mcpRoutes, {
      publicUrl: config.publicUrl,
      inject: (options) => app.inject(options),
      version: deps.version,
      clock,
    });
    await app.register(sitePlugin, {
      pages,
      keyRequests: deps.keyRequests,
      formSecret: deps.formSecret,
      clock,
    });
    await app.register(discoveryPlugin, { pages: pages.en });
    deps.fastPath?.installOn(app.server);
  } catch (error) {
    await app.close().catch(() => {});
    throw error;
  }
  return app;
}
