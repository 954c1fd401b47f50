import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { RatesResponseSchema } from '../../domain/rates.ts';
import { problem, problemResponse } from '../../web/error-catalog.ts';
import type { ResponseHeaders } from '../edge/response-headers.ts';
import type { EncodedBody } from '../snapshot/body-encoding.ts';
import type { SnapshotCache } from '../snapshot/snapshot-cache.ts';
import { ratesResponse } from './response.ts';
import {
  bothSymbolParametersDetail,
  maxSymbols,
  requestedSymbols,
  symbolPattern,
  symbolQueryDetail,
  symbolsPattern,
} from './symbols-query.ts';

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

/** The 404 to listed-looking symbols that are not listed, naming them in `detail` and `unknown-symbols`. */
function unknownSymbols(symbols: string[]) {
  const named = symbols.join(', ');
  return problem(
    'unknown-symbol',
    `${named} ${symbols.length === 1 ? 'is' : 'are'} not listed; GET /v1/rates lists every currency.`,
    { 'unknown-symbols': symbols },
  );
}

/**
 * `GET /v1/rates[?symbol=|?symbols=]` (content/docs.md "GET /v1/rates"), registered behind the key check
 * (../auth/behind-api-key.ts): key check and rate limit run first (onRequest), then validation. The body
 * and its header fields come precomputed from the snapshot cache in the negotiated coding, so the
 * hot path only picks them and adds the per-request fields.
 */
export const ratesRoutes: FastifyPluginAsyncTypebox<RatesRouteOptions> = async (app, options) => {
  const { snapshots, clock, responseHeaders } = options;
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
              pattern: symbolPattern,
              description: 'Restrict the list to one currency; case-insensitive (btc = BTC)',
              examples: ['BTC'],
            }),
          ),
          symbols: Type.Optional(
            Type.String({
              pattern: symbolsPattern,
              description: `Restrict the list to several currencies: comma-separated symbols, each as for symbol, case-insensitive, duplicates folded, at most ${maxSymbols} distinct. Rows come sorted by symbol, as in the full list; the request counts once against the key's limit. Not together with symbol.`,
              examples: ['BTC,ETH,SOL'],
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
            `invalid-symbol: symbol is not 1–20 ASCII letters or digits; or symbols has an empty or malformed item or more than ${maxSymbols} distinct symbols; or both were given. detail names the part`,
            rateLimitHeaders,
          ),
          401: problemResponse(
            'missing-api-key: no X-API-Key header (keys in the query string are refused)',
            {
              'WWW-Authenticate': Type.String(),
            },
          ),
          403: problemResponse('invalid-api-key: the key is unknown, malformed, revoked or expired'),
          404: problemResponse(
            'unknown-symbol: a symbol is well formed but not listed; detail and unknown-symbols name which',
            rateLimitHeaders,
          ),
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
          ? problem('invalid-symbol', symbolQueryDetail(request.query))
          : problem('invalid-request', request.validationError.message);
      }
      const { symbol, symbols } = request.query;
      if (symbol !== undefined && symbols !== undefined) {
        throw problem('invalid-symbol', bothSymbolParametersDetail);
      }
      const requested = symbols === undefined ? null : requestedSymbols(symbols);
      if (requested !== null && 'problem' in requested) throw problem('invalid-symbol', requested.problem);
      const view = snapshots.current();
      if (view === null) {
        throw problem(
          'service-unavailable',
          'No rate snapshot has been committed yet; the service has just started.',
          {},
          { 'Retry-After': String(firstSnapshotRetrySeconds) },
        );
      }
      let body: EncodedBody | null = view.all;
      if (symbol !== undefined) {
        body = view.forSymbol(symbol.toUpperCase());
        if (body === null) throw unknownSymbols([symbol.toUpperCase()]);
      } else if (requested !== null) {
        body = view.forSymbols(requested.symbols);
        if (body === null) {
          throw unknownSymbols(requested.symbols.filter((wanted) => !view.rowsBySymbol.has(wanted)));
        }
      }
      const answer = ratesResponse(view, body, request.headers, clock());
      responseHeaders.sendPrepared(
        reply,
        answer.status,
        answer.fields,
        ['cache-control', answer.cacheControl],
        answer.body,
      );
    },
  );
};
