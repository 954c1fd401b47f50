import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { AuthenticatedKey, KeyAuthenticator } from '../../keys/authenticator.ts';
import type { FailedKeyThrottle } from '../../limiter/failed-key-throttle.ts';
import type { RateLimitDecision, RateLimiter } from '../../limiter/types.ts';
import type { Logger } from '../../logger.ts';
import type { HttpMetrics } from '../../metrics/http-metrics.ts';
import { clientNetwork } from '../../net/client-network.ts';
import { RateLimitFields } from '../auth/rate-limit-fields.ts';
import { type AccessLog, requestIdOf } from '../edge/access-log.ts';
import type { ResponseHeaders } from '../edge/response-headers.ts';
import type { EncodedBody } from '../snapshot/body-encoding.ts';
import type { SnapshotCache } from '../snapshot/snapshot-cache.ts';
import type { SnapshotView } from '../snapshot/snapshot-view.ts';
import { PreparedHeads } from './prepared-head.ts';
import { ratesResponse } from './response.ts';
import { TurnBatch } from './turn-batch.ts';

interface RatesFastPathOptions {
  snapshots: SnapshotCache;
  authenticator: KeyAuthenticator;
  limiter: RateLimiter;
  failedKeys: FailedKeyThrottle;
  defaultLimit: number;
  windowSeconds: number;
  clock: () => number;
  /** The request's client address, as Fastify's `request.ip` would give it (../edge/client-address.ts). */
  clientAddress: (request: IncomingMessage) => string | undefined;
  responseHeaders: ResponseHeaders;
  accessLog: AccessLog;
  metrics: Pick<HttpMetrics, 'limitDecision'>;
  logger: Logger;
}

/** The route's template, as Fastify names it in the metrics. */
const route = '/v1/rates';
/** The one query the fast path answers: `symbol`, once, as the route's schema accepts it. */
const symbolTarget = /^\/v1\/rates\?symbol=([A-Za-z0-9]{1,20})$/;

/**
 * The common `GET /v1/rates`, answered on node:http before Fastify routes it
 * (docs/architecture.md#the-rates-fast-path): a request with a key the caches know as valid, for the full list or a
 * listed symbol, that the limit admits. Everything else (no key, an unknown or uncached key, a
 * paused client address, a query the schema would refuse or that holds more than `symbol`, an
 * unlisted symbol, no snapshot yet, a refusal of the limit, any other method or path) is handed to
 * Fastify untouched, where the route, its schema and the one error handler answer it; so every
 * problem document still comes from one place. Nothing is counted before a request is known to be
 * answered here, except a refused limit decision, which counts nothing.
 *
 * What an admitted request gets is what the route sends: the same representation
 * (./response.ts), the same fields in one `writeHead` (ResponseHeaders.writePrepared), the
 * same `RateLimit` fields (../auth/rate-limit-fields.ts), request id, access-log line and metrics
 * (../edge/access-log.ts). A socket test sends the same requests through both and compares them.
 *
 * Why: Fastify's routing, request and reply objects and hook chain cost as much per request as
 * everything nerkh does for it (docs/decisions/0001-rates-fast-path-before-fastify.md).
 */
export class RatesFastPath {
  readonly #options: RatesFastPathOptions;
  readonly #rateLimitFields: RateLimitFields;
  readonly #admittedThisTurn: TurnBatch;
  #heads: PreparedHeads | null = null;

  constructor(options: RatesFastPathOptions) {
    this.#options = options;
    this.#rateLimitFields = new RateLimitFields(options.windowSeconds);
    // Each deferred answer catches its own faults; this hears only of what would escape them.
    this.#admittedThisTurn = new TurnBatch((error) =>
      options.logger.error({ err: error }, 'answering an admitted rates request failed'),
    );
  }

  /**
   * Puts the fast path in front of the server's request listener (Fastify's), which gets every
   * request the fast path does not answer.
   */
  installOn(server: Server): void {
    const listeners = server.listeners('request') as RequestListener[];
    const [fastify] = listeners;
    if (listeners.length !== 1 || fastify === undefined) {
      throw new Error(`expected one request listener (Fastify's) on the server, found ${listeners.length}`);
    }
    server.removeListener('request', fastify);
    this.#heads = new PreparedHeads(server);
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      try {
        this.serve(request, response, fastify);
      } catch (error) {
        this.#fault(error, request, response, fastify);
      }
    });
  }

  /** Answers `request`, or hands it to `next` untouched. */
  serve(request: IncomingMessage, response: ServerResponse, next: RequestListener): void {
    const startMs = performance.now();
    const target = request.url;
    const view = this.#options.snapshots.current();
    const presented = request.headers['x-api-key'];
    if (
      request.method !== 'GET' ||
      target === undefined ||
      view === null ||
      typeof presented !== 'string' ||
      presented === ''
    ) {
      next(request, response);
      return;
    }
    const body = this.#bodyFor(target, view);
    const ip = body === null ? undefined : this.#options.clientAddress(request);
    if (body === null || ip === undefined) {
      next(request, response);
      return;
    }
    const { authenticator, failedKeys, limiter, clock } = this.#options;
    const nowMs = clock();
    // A paused address, or a key only the store knows: the route's key check answers them.
    const key =
      failedKeys.pausedSeconds(clientNetwork(ip), nowMs) > 0
        ? undefined
        : authenticator.cachedValid(presented, nowMs);
    if (key === undefined) {
      next(request, response);
      return;
    }
    const limit = key.rateLimit ?? this.#options.defaultLimit;
    const decision = limiter.take(key.id, limit, nowMs);
    // A refusal counted nothing: the route takes its own decision and sends the 429 problem. So
    // does a limiter that fails (Redis's falls back to memory rather than fail). One reaction for
    // every outcome, its own faults caught inside it: a `.catch` after it would cost every request
    // of a limiter that answers later a second promise.
    const answer = (taken: RateLimitDecision | null, answeredMs: number) => {
      try {
        if (taken?.allowed)
          this.#send(request, response, { view, body, key, limit, taken, ip, startMs }, answeredMs);
        else next(request, response);
      } catch (error) {
        this.#fault(error, request, response, next);
      }
    };
    if (decision instanceof Promise) {
      // A limiter that answers later (Redis): its answers to one turn's requests come together.
      decision.then(
        (taken) => answer(taken, clock()),
        () => answer(null, 0),
      );
    } else if (decision.allowed) {
      // Written with the other answers admitted in this turn of the event loop (./turn-batch.ts).
      this.#admittedThisTurn.defer(() => answer(decision, nowMs));
    } else {
      next(request, response);
    }
  }

  /**
   * A fault of the fast path itself is logged, and the request goes to the route, whose error
   * handler answers it if the fault is shared; once a response has started, its socket is closed,
   * as Fastify does with a response that fails midway. Never an uncaught exception.
   */
  #fault(error: unknown, request: IncomingMessage, response: ServerResponse, next: RequestListener): void {
    this.#options.logger.error({ err: error }, 'rates fast path failed; the route answers');
    if (response.headersSent) response.destroy();
    else next(request, response);
  }

  /** The full list or the one listed symbol the target asks for, or null for any other target. */
  #bodyFor(target: string, view: SnapshotView): EncodedBody | null {
    if (target === route) return view.all;
    const match = symbolTarget.exec(target);
    return match === null ? null : view.forSymbol((match[1] as string).toUpperCase());
  }

  /** Sends the admitted request's answer, as of `nowMs`. */
  #send(request: IncomingMessage, response: ServerResponse, admitted: Admitted, nowMs: number): void {
    const { view, body, key, limit, taken, ip, startMs } = admitted;
    const { responseHeaders, accessLog, metrics } = this.#options;
    metrics.limitDecision(true);
    key.counted(true, nowMs);
    this.#options.authenticator.countCacheHit();
    const requestId = requestIdOf(request);
    const answer = ratesResponse(view, body, request.headers, nowMs);
    const policy = this.#rateLimitFields.policy(limit);
    const state = this.#rateLimitFields.state(taken);
    // Every value here is made of characters a field value may hold (see PreparedHeads).
    const lines = responseHeaders.preparedLines(
      answer.status,
      answer.fieldLines,
      `cache-control: ${answer.cacheControl}\r\nratelimit-policy: ${policy}\r\nratelimit: ${state}\r\n`,
      requestId,
    );
    if (lines === null || this.#heads?.send(response, answer.status, lines, answer.body) !== true) {
      const more = ['cache-control', answer.cacheControl, 'ratelimit-policy', policy, 'ratelimit', state];
      responseHeaders.writePrepared(response, answer.status, answer.fields, more, requestId, answer.body);
    }
    accessLog.record({
      requestId,
      method: 'GET',
      url: request.url as string,
      route,
      status: answer.status,
      elapsedMs: performance.now() - startMs,
      ip,
      keyId: key.id,
    });
  }
}

/** What an admitted request is answered from. */
interface Admitted {
  view: SnapshotView;
  body: EncodedBody;
  key: AuthenticatedKey;
  limit: number;
  taken: RateLimitDecision;
  ip: string;
  startMs: number;
}
