import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { containsApiKeyShape } from '../../keys/api-key.ts';
import { FixedShapeLines, jsonHundredths, jsonStringContent, type Logger } from '../../logger.ts';
import type { HttpMetrics } from '../../metrics/http-metrics.ts';
import { pathOf, queryOf } from '../../web/request-target.ts';
import { RequestIds } from './request-ids.ts';

/** Query parameter names clients wrongly put keys in (content/docs.md "Authentication"); compared case-insensitively. */
const queryKeyNames = new Set(['key', 'api_key', 'apikey']);

/**
 * A query can only name one of those parameters if its raw text holds "key" in some casing or a
 * percent-escape (which could spell it); most queries (`symbol=BTC`) are cleared without parsing.
 */
const mayNameKey = /key|%/i;

/** True when the raw query string carries a key parameter, under any casing or percent-encoding. */
export function queryCarriesKey(rawQuery: string): boolean {
  if (!mayNameKey.test(rawQuery)) return false;
  for (const name of new URLSearchParams(rawQuery).keys()) {
    if (queryKeyNames.has(name.toLowerCase())) return true;
  }
  return false;
}

/**
 * The URL as it may be logged: a query string that carries a key is replaced whole, because its
 * other parameters could hold the key too (a mistyped name) and query strings are where keys leak.
 */
export function loggableUrl(url: string): string {
  const query = queryOf(url);
  if (query === undefined) return url;
  return queryCarriesKey(query) ? `${pathOf(url)}?[redacted]` : url;
}

const requestIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;
const freshRequestIds = new RequestIds();

/**
 * Request id: the caller's `X-Request-Id` when it is a plain token (so ids cannot smuggle text
 * into logs) that does not hold a key (a client that put its key there would have it logged and
 * echoed), otherwise a fresh UUID. It is returned in `X-Request-Id` and bound to every log line.
 * Either way it is made of `[A-Za-z0-9._:-]` only, which the access line writes without escaping.
 */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && requestIdPattern.test(given) && !containsApiKeyShape(given)
    ? given
    : freshRequestIds.next();
}

/** What one access-log line says of an answered request. */
export interface AccessEntry {
  /** From `requestIdOf` (both ways a response is sent take it from there), so never escaped. */
  requestId: string;
  method: string;
  /** The request target as received; redacted here (loggableUrl). */
  url: string;
  /** The matched route's template (for the metrics), undefined when none matched. */
  route: string | undefined;
  status: number;
  elapsedMs: number;
  /** Undefined when the socket was already gone. */
  ip: string | undefined;
  /** Id of the API key that authenticated the request (never the key), if any. */
  keyId: string | null;
}

/**
 * One access-log line and one metrics observation (route, status, duration) per response: request
 * id, method, URL (redacted as above), status, duration, client address and key id, in that order.
 * Fastify's built-in request logging is off because it logs the raw URL. `X-API-Key` is never
 * read here, and every field is a string or number built here, so the line is serialized here
 * (FixedShapeLines) rather than by pino's general serializer, and no field can carry a key.
 * Responses sent through Fastify are recorded by its `onResponse` hook (`install`); the rates fast
 * path (../rates/fast-path.ts) records its own with `record`, so both write the same line.
 */
export class AccessLog {
  readonly #lines: FixedShapeLines;
  readonly #metrics: Pick<HttpMetrics, 'request'>;

  constructor(logger: Logger, metrics: Pick<HttpMetrics, 'request'>) {
    this.#lines = new FixedShapeLines(logger, 'request');
    this.#metrics = metrics;
  }

  record(entry: AccessEntry): void {
    // Recorded here rather than in a hook of its own: one hook per request, not two.
    this.#metrics.request(entry.route, entry.status, entry.elapsedMs / 1000);
    if (!this.#lines.enabled) return;
    // The request id first, where request.log's binding puts it: one line shape for every reader.
    // A field without a value is left out, as pino leaves out an undefined one.
    const ip = entry.ip === undefined ? '' : `,"ip":"${jsonStringContent(entry.ip)}"`;
    const keyId = entry.keyId === null ? '' : `,"key_id":"${jsonStringContent(entry.keyId)}"`;
    this.#lines.write(
      `,"req_id":"${entry.requestId}","method":"${jsonStringContent(entry.method)}","url":"${jsonStringContent(loggableUrl(entry.url))}","status":${entry.status},"duration_ms":${jsonHundredths(entry.elapsedMs)}${ip}${keyId}`,
    );
  }

  install(app: FastifyInstance): void {
    // A callback hook: an async one costs a promise per request for no waiting at all.
    app.addHook('onResponse', (request, reply, done) => {
      this.record({
        requestId: request.id,
        method: request.method,
        url: request.url,
        route: request.routeOptions.url,
        status: reply.statusCode,
        elapsedMs: reply.elapsedTime,
        ip: request.ip,
        keyId: request.apiKeyId,
      });
      done();
    });
  }
}
