import { type TSchema, Type } from 'typebox';

/**
 * The one list of errors the HTTP edge can answer with (docs/architecture.md#errors). Every error leaves the service
 * as an RFC 9457 problem document (`application/problem+json`): `type` is the URL of the section
 * of `/docs/errors` that documents it, `code` a stable extension member clients can switch on.
 * The website renders `/docs/errors` from this catalog, and a test checks every entry is complete,
 * so an error cannot exist without documentation (the fastify core error-list pattern).
 */
interface ErrorEntry {
  status: number;
  /** Short, human-readable summary; the same for every occurrence (RFC 9457 §3.1.4). */
  title: string;
  /** What happened and what the client should do about it; rendered on /docs/errors. */
  description: string;
}

export const errorCatalog = {
  'missing-api-key': {
    status: 401,
    title: 'API key required',
    description:
      'The request carried no `X-API-Key` header. Send your key in that header; keys in the query string (`key`, `api_key`, `apikey`) are refused because servers and proxies log query strings. A key that was sent in a query string must be treated as exposed: ask for it to be revoked and replaced.',
  },
  'invalid-api-key': {
    status: 403,
    title: 'API key not valid',
    description:
      'The key in `X-API-Key` is unknown, malformed, revoked or expired. The answer is the same in every case so nothing leaks about which keys exist. Check that the whole key was copied; if it was revoked, request a new one through the contact page.',
  },
  'origin-not-allowed': {
    status: 403,
    title: 'Origin not allowed',
    description:
      "A browser sent a request to `/mcp` from a page of another site (its `Origin` header names another origin). MCP servers must refuse those, so a web page cannot use a visitor's network to reach them (DNS rebinding; MCP transports specification). Call `/mcp` from a program or an MCP host, which send no `Origin`.",
  },
  'rate-limited': {
    status: 429,
    title: 'Rate limit exceeded',
    description:
      'The key used up its request quota for the rolling window (60 requests in any 60 seconds unless agreed otherwise). Wait the number of seconds in `Retry-After` before the next request; the `RateLimit` and `RateLimit-Policy` headers on every response show the remaining quota. Rejected requests do not count against the quota.',
  },
  'too-many-failed-keys': {
    status: 429,
    title: 'Too many invalid API keys',
    description:
      'This client address sent too many invalid keys within a minute, so key checks from it are paused to stop keys being guessed. Wait the number of seconds in `Retry-After` and retry with a valid key.',
  },
  'invalid-symbol': {
    status: 400,
    title: 'Invalid symbol',
    description:
      'The `symbol` query parameter must be 1 to 20 ASCII letters or digits (for example `BTC`), given once. `symbols` must be one comma-separated list of such symbols (for example `BTC,ETH,SOL`), given once, with no empty item and at most 20 distinct symbols after case and duplicates are folded. `symbol` and `symbols` cannot be given together. `detail` names the part at fault. Matching is case-insensitive.',
  },
  'unknown-symbol': {
    status: 404,
    title: 'Unknown symbol',
    description:
      'A symbol in `symbol` or `symbols` is well formed but not listed by the service; `detail` and the `unknown-symbols` member name every one that is not. Request `/v1/rates` without `symbol` or `symbols` to see every listed currency.',
  },
  'invalid-request': {
    status: 400,
    title: 'Invalid request',
    description:
      'A query parameter, header or body did not match what the endpoint accepts; `detail` names the part. The OpenAPI description at `/v1/openapi.json` lists what each endpoint accepts.',
  },
  'not-found': {
    status: 404,
    title: 'Not found',
    description:
      'No resource exists at this path. API paths start with `/v1/`; `/v1/openapi.json` lists them all.',
  },
  'method-not-allowed': {
    status: 405,
    title: 'Method not allowed',
    description:
      'The path exists but does not support this HTTP method. The `Allow` header lists the methods it supports; the service is read-only, so data endpoints answer `GET` and `HEAD`.',
  },
  'not-acceptable': {
    status: 406,
    title: 'Not acceptable',
    description:
      'The `Accept` header rules out every media type this resource is available in. Accept `application/json` (or `*/*`) for API responses.',
  },
  'payload-too-large': {
    status: 413,
    title: 'Request body too large',
    description:
      'The request body is larger than the endpoint accepts. API endpoints take no body at all; `/mcp` takes one JSON-RPC message of at most 16 KiB.',
  },
  'unsupported-media-type': {
    status: 415,
    title: 'Unsupported media type',
    description: 'The request body has a `Content-Type` this endpoint does not accept.',
  },
  'request-header-fields-too-large': {
    status: 431,
    title: 'Request header fields too large',
    description:
      'The request headers together are larger than the server accepts (RFC 6585 §5). Send fewer or smaller headers; the API needs only `X-API-Key` and, optionally, `Accept-Encoding` and `If-None-Match`.',
  },
  'expectation-failed': {
    status: 417,
    title: 'Expectation failed',
    description:
      'The request carried an `Expect` header other than `100-continue`, the only expectation HTTP/1.1 defines (RFC 9110 §10.1.1). Send the request without it.',
  },
  'request-timeout': {
    status: 408,
    title: 'Request timeout',
    description:
      'The client did not send a complete request in time, so the server closed the connection. Send the whole request promptly.',
  },
  'bad-request': {
    status: 400,
    title: 'Malformed request',
    description:
      'The request could not be parsed as HTTP, or its URL or body is malformed (for example a broken percent-encoding). Fix the client; retrying the same bytes will fail again.',
  },
  'internal-error': {
    status: 500,
    title: 'Internal error',
    description:
      'The service failed to answer because of a fault on its side. The fault is logged with the request id returned in `X-Request-Id`; retry later and quote that id when reporting it.',
  },
  'form-token-invalid': {
    status: 403,
    title: 'Form expired or not sent from this site',
    description:
      'The key request form was submitted without the security token of a form loaded from this site, with a token that does not match the browser session, or more than two hours after the form was loaded. Load the contact page (`/contact`) again and resubmit; cookies must be enabled.',
  },
  'too-many-key-requests': {
    status: 429,
    title: 'Too many key requests',
    description:
      'This network sent the most key requests the contact page accepts in an hour (5). Wait the number of seconds in `Retry-After`; requests already sent are being reviewed and need not be repeated.',
  },
  'service-unavailable': {
    status: 503,
    title: 'Service unavailable',
    description:
      'The service cannot answer right now, typically because no rate snapshot has been committed yet after a fresh start, or because its key store does not answer. Retry after the number of seconds in `Retry-After`; `/v1/health` shows the state of the data.',
  },
} as const satisfies Record<string, ErrorEntry>;

export type ErrorCode = keyof typeof errorCatalog;

export const errorCodes = Object.keys(errorCatalog) as ErrorCode[];

/** `type` member of a problem: the `/docs/errors` section that documents the code. */
function errorTypeUrl(publicUrl: string, code: ErrorCode): string {
  return `${publicUrl}/docs/errors#${code}`;
}

/** RFC 9457 extension members beyond the standard ones, e.g. `violated-policies` on a 429. */
type ProblemExtensions = Record<string, unknown>;

/**
 * Thrown (or passed to `reply.send`) anywhere in a request; the one error handler turns it into a
 * problem document. `headers` are set on the error response (e.g. `Retry-After`, `Allow`).
 */
export class ProblemError extends Error {
  override name = 'ProblemError';
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly extensions: ProblemExtensions = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(`${code}: ${detail}`);
    this.status = errorCatalog[code].status;
  }
}

/** Shorthand for `new ProblemError`; `detail` defaults to the catalog title. */
export function problem(
  code: ErrorCode,
  detail?: string,
  extensions?: ProblemExtensions,
  headers?: Record<string, string>,
): ProblemError {
  return new ProblemError(code, detail ?? errorCatalog[code].title, extensions, headers);
}

export const problemContentType = 'application/problem+json';

/** The problem document for `error`, as sent: standard members first, then extensions. */
export function problemDocument(publicUrl: string, error: ProblemError, instance?: string): string {
  const entry = errorCatalog[error.code];
  return JSON.stringify({
    type: errorTypeUrl(publicUrl, error.code),
    title: entry.title,
    status: entry.status,
    detail: error.detail,
    ...(instance === undefined ? {} : { instance }),
    code: error.code,
    ...error.extensions,
  });
}

/** Schema of every problem document (RFC 9457 §3), used in route schemas and so in OpenAPI. */
export const ProblemSchema = Type.Object(
  {
    type: Type.String({ format: 'uri', description: 'URL of the documentation of this error' }),
    title: Type.String(),
    status: Type.Integer({ minimum: 400, maximum: 599 }),
    detail: Type.String(),
    instance: Type.Optional(Type.String({ description: 'Path of the request that failed' })),
    code: Type.Union(
      errorCodes.map((code) => Type.Literal(code)),
      { description: 'Stable error code; see /docs/errors' },
    ),
    'violated-policies': Type.Optional(
      Type.Array(Type.String(), { description: 'Rate-limit policies the request exceeded (on 429)' }),
    ),
    'unknown-symbols': Type.Optional(
      Type.Array(Type.String(), {
        description: 'The requested symbols that are not listed, upper case (on 404 unknown-symbol)',
      }),
    ),
  },
  {
    additionalProperties: true,
    description: 'RFC 9457 problem details',
    examples: [
      {
        type: 'https://rates.example.ir/docs/errors#missing-api-key',
        title: 'API key required',
        status: 401,
        detail: 'Send your API key in the X-API-Key header.',
        instance: '/v1/rates',
        code: 'missing-api-key',
      },
      {
        type: 'https://rates.example.ir/docs/errors#rate-limited',
        title: 'Rate limit exceeded',
        status: 429,
        detail: 'This key may make 60 requests in any 60 s; the next one is admitted in 12 s.',
        instance: '/v1/rates',
        code: 'rate-limited',
        'violated-policies': ['default'],
      },
    ],
  },
);

/**
 * A route-schema response entry for a problem status: the problem document as
 * `application/problem+json`, with optional documented headers (for OpenAPI).
 */
export function problemResponse(description: string, headers?: Record<string, TSchema>) {
  return {
    description,
    ...(headers ? { headers } : {}),
    content: { [problemContentType]: { schema: ProblemSchema } },
  };
}
