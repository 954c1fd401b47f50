import type { FastifyReply, FastifyRequest } from 'fastify';
import type { KeyAuthenticator } from '../keys/authenticator.ts';
import type { RateLimiter } from '../limiter/types.ts';
import { queryCarriesKey } from './access-log.ts';
import { problem } from './errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Id of the API key that authenticated the request (never the key), or null. */
    apiKeyId: string | null;
  }
}

export interface ApiKeyGuardOptions {
  authenticator: KeyAuthenticator;
  /** Per-key request limit (design §2). */
  limiter: RateLimiter;
  /** Invalid keys per client address, so keys cannot be guessed at speed. */
  failureLimiter: RateLimiter;
  defaultLimit: number;
  windowSeconds: number;
  /** Invalid keys one client address may send per window before its key checks pause. */
  failureLimit: number;
  clock: () => number;
}

/** The one limit policy, named as draft-ietf-httpapi-ratelimit-headers names policies. */
export const ratePolicyName = 'default';

/**
 * `onRequest` hook of every authenticated route, in the order design §2 fixes: key check, then
 * rate limit; validation runs after it. Errors are thrown as problems for the one error handler.
 */
export function apiKeyGuard(options: ApiKeyGuardOptions) {
  const { authenticator, limiter, failureLimiter, defaultLimit, windowSeconds, failureLimit, clock } =
    options;

  return async function guardApiKey(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const presented = request.headers['x-api-key'];
    if (presented === undefined || presented === '') {
      const query = request.url.indexOf('?');
      const inQuery = query !== -1 && queryCarriesKey(request.url.slice(query + 1));
      // RFC 9110 §15.5.2: a 401 carries WWW-Authenticate naming how to authenticate.
      throw problem(
        'missing-api-key',
        inQuery
          ? 'API keys are not accepted in the query string, because servers and proxies log query strings. Send the key in the X-API-Key header. Treat the key you sent as exposed: ask for it to be revoked and replaced.'
          : 'Send your API key in the X-API-Key header.',
        {},
        { 'WWW-Authenticate': 'ApiKey realm="nerkh", header="X-API-Key"' },
      );
    }

    const now = clock();
    const paused = await failureLimiter.peek(request.ip, failureLimit, now);
    if (!paused.allowed) {
      throw problem(
        'too-many-failed-keys',
        `Too many invalid API keys from this address; key checks resume in ${paused.retryAfterSeconds} s.`,
        {},
        { 'Retry-After': String(paused.retryAfterSeconds) },
      );
    }
    // Node joins repeated unknown headers with ", " (typed string[] only for some headers); either
    // way more than one key is not a valid key.
    const key = await authenticator.authenticate(Array.isArray(presented) ? presented.join(', ') : presented);
    if (key === null) {
      await failureLimiter.take(request.ip, failureLimit, now);
      throw problem('invalid-api-key', 'The API key is not valid.');
    }
    request.apiKeyId = key.id;

    const limit = key.rateLimit ?? defaultLimit;
    const decision = await limiter.take(key.id, limit, now);
    // draft-ietf-httpapi-ratelimit-headers: the policy (quota q per window w seconds) and the
    // current state (r requests remaining, t seconds until the next slot frees).
    reply.header('RateLimit-Policy', `"${ratePolicyName}";q=${limit};w=${windowSeconds}`);
    reply.header('RateLimit', `"${ratePolicyName}";r=${decision.remaining};t=${decision.resetSeconds}`);
    if (!decision.allowed) {
      throw problem(
        'rate-limited',
        `This key may make ${limit} requests in any ${windowSeconds} s; the next one is admitted in ${decision.retryAfterSeconds} s.`,
        { 'violated-policies': [ratePolicyName] },
        { 'Retry-After': String(decision.retryAfterSeconds) },
      );
    }
  };
}
