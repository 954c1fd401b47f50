import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, onRequestHookHandler } from 'fastify';
import type { AuthenticatedKey, KeyAuthenticator } from '../../keys/authenticator.ts';
import type { FailedKeyThrottle } from '../../limiter/failed-key-throttle.ts';
import type { MaybePromise, RateLimitDecision, RateLimiter } from '../../limiter/types.ts';
import type { HttpMetrics } from '../../metrics/http-metrics.ts';
import { clientNetwork } from '../../net/client-network.ts';
import { type ProblemError, problem } from '../../web/error-catalog.ts';
import { queryOf } from '../../web/request-target.ts';
import { queryCarriesKey } from '../edge/access-log.ts';
import { RateLimitFields, ratePolicyName } from './rate-limit-fields.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Id of the API key that authenticated the request (never the key), or null. */
    apiKeyId: string | null;
  }
}

interface ApiKeyGuardOptions {
  authenticator: KeyAuthenticator;
  /** Per-key request limit (docs/architecture.md#rate-limit). */
  limiter: RateLimiter;
  /** Invalid keys per client address (an IPv6 client's /64), so keys cannot be guessed at speed. */
  failedKeys: FailedKeyThrottle;
  defaultLimit: number;
  windowSeconds: number;
  /** Invalid keys one client address may send per window before its key checks pause. */
  failureLimit: number;
  clock: () => number;
  metrics: Pick<HttpMetrics, 'limitDecision' | 'invalidKey' | 'keyChecksPaused'>;
}

type Done = HookHandlerDoneFunction;

function isPromise<T>(value: MaybePromise<T>): value is Promise<T> {
  return value instanceof Promise;
}

/** Continues with `next` once `value` settles; a rejection or a throw in `next` goes to `done`. */
function resume<T>(value: Promise<T>, done: Done, next: (settled: T) => void): void {
  value.then((settled) => {
    try {
      next(settled);
    } catch (error) {
      done(error as Error);
    }
  }, done);
}

function tooManyFailedKeys(seconds: number): ProblemError {
  return problem(
    'too-many-failed-keys',
    `Too many invalid API keys from this address; key checks resume in ${seconds} s.`,
    {},
    { 'Retry-After': String(seconds) },
  );
}

/** Seconds a client waits before retrying when the key store does not answer. */
const keyStoreRetrySeconds = 5;

/**
 * A key not in the cache needs the store; when the store does not answer (PostgreSQL down, the
 * pool exhausted), the request is answered 503 with Retry-After: a fault of ours, but a passing
 * one, not the 500 of a crash. The store's error goes with it, into the log of the failed request.
 */
function keyStoreUnavailable(cause: unknown): ProblemError {
  const error = problem(
    'service-unavailable',
    'The service cannot check API keys right now; retry shortly.',
    {},
    { 'Retry-After': String(keyStoreRetrySeconds) },
  );
  error.cause = cause;
  return error;
}

function missingKey(url: string): ProblemError {
  const query = queryOf(url);
  const inQuery = query !== undefined && queryCarriesKey(query);
  // RFC 9110 §15.5.2: a 401 carries WWW-Authenticate naming how to authenticate.
  return problem(
    'missing-api-key',
    inQuery
      ? 'API keys are not accepted in the query string, because servers and proxies log query strings. Send the key in the X-API-Key header. Treat the key you sent as exposed: ask for it to be revoked and replaced.'
      : 'Send your API key in the X-API-Key header.',
    {},
    { 'WWW-Authenticate': 'ApiKey realm="nerkh", header="X-API-Key"' },
  );
}

/**
 * `onRequest` hook of every authenticated route, in the order content/docs.md "GET /v1/rates" fixes: key check, then
 * rate limit; validation runs after it. Errors go to the one error handler as problems.
 *
 * It is a callback hook whose steps continue synchronously when their answer is at hand: the
 * in-process limiter and a cached key answer at once, so an authenticated request normally waits
 * on no promise; a store read or a shared (Redis) limiter continues the same steps asynchronously.
 */
export function apiKeyGuard(options: ApiKeyGuardOptions): onRequestHookHandler {
  const { authenticator, limiter, failedKeys, defaultLimit, windowSeconds, failureLimit, clock, metrics } =
    options;
  const rateLimitFields = new RateLimitFields(windowSeconds);

  function checkKey(request: FastifyRequest, reply: FastifyReply, done: Done, now: number) {
    // Node joins repeated unknown headers with ", " (typed string[] only for some headers); either
    // way more than one key is not a valid key.
    const presented = request.headers['x-api-key'] as string | string[];
    const key = authenticator.authenticate(Array.isArray(presented) ? presented.join(', ') : presented);
    if (!isPromise(key)) {
      checkLimit(request, reply, done, now, key);
      return;
    }
    key.then(
      (found) => {
        try {
          checkLimit(request, reply, done, now, found);
        } catch (error) {
          done(error as Error);
        }
      },
      (error: unknown) => done(keyStoreUnavailable(error)),
    );
  }

  function checkLimit(
    request: FastifyRequest,
    reply: FastifyReply,
    done: Done,
    now: number,
    key: AuthenticatedKey | null,
  ) {
    if (key === null) {
      metrics.invalidKey();
      const counted = failedKeys.fail(clientNetwork(request.ip), failureLimit, now);
      // Refused when the address's window was already full (the pause was made on another
      // instance, and its word has not arrived): the answer is the pause's.
      const refuse = (failure: RateLimitDecision) => {
        if (failure.allowed) {
          done(problem('invalid-api-key', 'The API key is not valid.'));
          return;
        }
        metrics.keyChecksPaused();
        done(tooManyFailedKeys(failure.retryAfterSeconds));
      };
      if (isPromise(counted)) resume(counted, done, refuse);
      else refuse(counted);
      return;
    }
    request.apiKeyId = key.id;
    const limit = key.rateLimit ?? defaultLimit;
    const decision = limiter.take(key.id, limit, now);
    if (isPromise(decision))
      resume(decision, done, (taken) => answer(reply, done, key, limit, taken, clock()));
    else answer(reply, done, key, limit, decision, now);
  }

  function answer(
    reply: FastifyReply,
    done: Done,
    key: AuthenticatedKey,
    limit: number,
    decision: RateLimitDecision,
    now: number,
  ) {
    reply.header('ratelimit-policy', rateLimitFields.policy(limit));
    reply.header('ratelimit', rateLimitFields.state(decision));
    metrics.limitDecision(decision.allowed);
    key.counted(decision.allowed, now);
    if (decision.allowed) {
      done();
      return;
    }
    done(
      problem(
        'rate-limited',
        `This key may make ${limit} requests in any ${windowSeconds} s; the next one is admitted in ${decision.retryAfterSeconds} s.`,
        { 'violated-policies': [ratePolicyName] },
        { 'Retry-After': String(decision.retryAfterSeconds) },
      ),
    );
  }

  return function guardApiKey(request, reply, done) {
    const presented = request.headers['x-api-key'];
    if (presented === undefined || presented === '') {
      done(missingKey(request.url));
      return;
    }
    const now = clock();
    // Answered from memory (../../limiter/failed-key-throttle.ts): no round trip to a shared limiter.
    const pausedSeconds = failedKeys.pausedSeconds(clientNetwork(request.ip), now);
    if (pausedSeconds > 0) {
      metrics.keyChecksPaused();
      done(tooManyFailedKeys(pausedSeconds));
    } else checkKey(request, reply, done, now);
  };
}
