import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { negotiateContentCoding } from '../content-coding.ts';
import { problem, problemResponse } from '../error-catalog.ts';
import type { ResponseHeaders } from '../response-headers.ts';
import { RatesResponseSchema } from '../schemas.ts';
import type { EncodedBody, SnapshotCache, SnapshotView } from '../snapshot-cache.ts';

interface RatesRouteOptions {
  /** The served snapshot: `snapshots.current()` is null before the first commit. */
  snapshots: SnapshotCache;
  /** Epoch milliseconds; Cache-Control counts down to the next refresh from it. */
  clock: () => number;
  /** `sendPrepared` writes the precomputed response in one go. */
  responseHeaders: ResponseHeaders;
}

/** Seconds a client should wait for the first snapshot of a freshly started service. */
const firstSnapshotRetrySeconds = 5;

const rateLimitHeaders = {
  RateLimit: Type.String({
    description:
      'draft-ietf-httpapi-ratelimit-headers: remaining requests r and seconds t until the next slot frees',
    examples: ['"default";r=59;t=60'],
  }),
  'RateLimit-Policy': Type.String({
    description: 'draft-ietf-httpapi-ratelimit-headers: q requests per rolling window of w seconds',
    examples: ['"default";q=60;w=60'],
  }),
};

/** Weak comparison of If-None-Match against the selected representation (RFC 9110 §13.1.2). */
function etagMatches(ifNoneMatch: string, etag: string): boolean {
  // The common case, a client sending back the one tag it was given, needs no parsing.
  if (ifNoneMatch === etag) return true;
  if (ifNoneMatch.trim() === '*') return true;
  for (const candidate of ifNoneMatch.split(',')) {
    const tag = candidate.trim();
    if ((tag.startsWith('W/') ? tag.slice(2) : tag) === etag) return true;
  }
  return false;
}

function notModified(
  headers: { 'if-none-match'?: string; 'if-modified-since'?: string },
  etag: string,
  view: SnapshotView,
): boolean {
  // If-None-Match, when present, decides alone (RFC 9110 §13.1.3).
  if (headers['if-none-match'] !== undefined) return etagMatches(headers['if-none-match'], etag);
  const since = headers['if-modified-since'];
  if (since === undefined) return false;
  const sinceMs = Date.parse(since);
  return Number.isFinite(sinceMs) && Math.floor(view.updatedAtMs / 1000) * 1000 <= sinceMs;
}

/**
 * `GET /v1/rates[?symbol=]` (docs/architecture.md#http-contract), registered behind the key check
 * (./behind-api-key.ts): key check and rate limit run first (onRequest), then validation. The body
 * and its header fields come precomputed from the snapshot cache in the negotiated coding, so the
 * hot path only picks them and adds the per-request fields.
 */
export const ratesRoutes: FastifyPluginAsyncTypebox<RatesRouteOptions> = async (app, options) => {
  const { snapshots, clock, responseHeaders } = options;
  // The response schemas below document what is sent (OpenAPI); nothing is serialized through
  // them: bodies are precomputed bytes, problems are sent as strings. Building Fastify's
  // serializers for them would only add to every start (~40 ms), so plain JSON stands in.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

  app.get(
    '/rates',
    {
      attachValidation: true,
      schema: {
        summary: 'Current sell rates',
        operationId: 'getRates',
        description:
          'Sell rates (what a user pays to buy) of the listed currencies in tether and toman, from the last committed snapshot (refreshed every 10 minutes). Use each row’s as_of to judge its freshness. Rates are informational.',
        tags: ['rates'],
        security: [{ ApiKeyAuth: [] }],
        querystring: Type.Object({
          symbol: Type.Optional(
            Type.String({
              pattern: '^[A-Za-z0-9]{1,20}$',
              description: 'Restrict the list to one currency; case-insensitive (btc = BTC)',
              examples: ['BTC'],
            }),
          ),
        }),
        headers: Type.Object({
          'if-none-match': Type.Optional(
            Type.String({ description: 'ETag of a cached response; 304 if unchanged' }),
          ),
          'if-modified-since': Type.Optional(
            Type.String({ description: 'HTTP-date; 304 if not refreshed since' }),
          ),
          'accept-encoding': Type.Optional(Type.String({ description: 'br and gzip are available' })),
        }),
        response: {
          200: {
            description: 'The rates',
            headers: {
              ...rateLimitHeaders,
              ETag: Type.String({ description: 'Changes with every snapshot' }),
              'Last-Modified': Type.String({ description: 'updated_at as an HTTP-date' }),
              'Cache-Control': Type.String({
                description: 'private, max-age = seconds until the next refresh',
                examples: ['private, max-age=412'],
              }),
            },
            content: { 'application/json': { schema: RatesResponseSchema } },
          },
          304: Type.Null({
            description: 'Not modified since the ETag or date given',
            headers: rateLimitHeaders,
          }),
          400: problemResponse(
            'invalid-symbol: symbol is not 1–20 ASCII letters or digits',
            rateLimitHeaders,
          ),
          401: problemResponse(
            'missing-api-key: no X-API-Key header (keys in the query string are refused)',
            {
              'WWW-Authenticate': Type.String(),
            },
          ),
          403: problemResponse('invalid-api-key: the key is unknown, malformed, revoked or expired'),
          404: problemResponse('unknown-symbol: the symbol is well formed but not listed', rateLimitHeaders),
          429: problemResponse(
            'rate-limited: more than the allowed requests in a rolling window; or too-many-failed-keys from this address',
            {
              ...rateLimitHeaders,
              'Retry-After': Type.Integer({ minimum: 1, description: 'Seconds to wait' }),
            },
          ),
          503: problemResponse(
            'service-unavailable: no snapshot has been committed yet, or the key store does not answer',
            {
              'Retry-After': Type.Integer({ minimum: 1 }),
            },
          ),
        },
      },
    },
    // Synchronous: everything it needs is in memory, so it neither awaits nor allocates a promise.
    (request, reply) => {
      if (request.validationError) {
        throw request.validationError.validationContext === 'querystring'
          ? problem(
              'invalid-symbol',
              'symbol must be 1 to 20 ASCII letters or digits, given once (e.g. BTC).',
            )
          : problem('invalid-request', request.validationError.message);
      }
      const view = snapshots.current();
      if (view === null) {
        throw problem(
          'service-unavailable',
          'No rate snapshot has been committed yet; the service has just started.',
          {},
          { 'Retry-After': String(firstSnapshotRetrySeconds) },
        );
      }
      const { symbol } = request.query;
      let body: EncodedBody | null = view.all;
      if (symbol !== undefined) {
        body = view.forSymbol(symbol.toUpperCase());
        if (body === null) {
          throw problem(
            'unknown-symbol',
            `${symbol.toUpperCase()} is not listed; GET /v1/rates lists every currency.`,
          );
        }
      }
      const representation = body[negotiateContentCoding(request.headers['accept-encoding'])];
      const cacheControl = ['cache-control', view.cacheControl(clock())];
      // The bytes and fields of RatesResponseSchema, worked out with the snapshot: nothing to
      // serialize, so the response goes out as it is, in one write.
      if (notModified(request.headers, representation.etag, view)) {
        responseHeaders.sendPrepared(reply, 304, [...representation.notModifiedFields, ...cacheControl]);
        return;
      }
      responseHeaders.sendPrepared(
        reply,
        200,
        [...representation.fields, ...cacheControl],
        representation.body,
      );
    },
  );
};
