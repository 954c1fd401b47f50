import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { renderFields } from './field-lines.ts';

/**
 * Security fields that protect any response with a body, not only an HTML document: a JSON
 * document must not be sniffed into something else (`nosniff`) nor be readable when embedded by
 * another origin (`Cross-Origin-Resource-Policy`), and HSTS holds for the whole host whichever
 * response carries it. The rest of helmet's set (the CSP, frame options, opener and agent-cluster
 * policies, referrer policy, DNS prefetch, download and cross-domain policies) governs what a
 * browser does with a document it renders: it is sent with HTML pages only.
 */
const everyBodyFields = new Set([
  'x-content-type-options',
  'strict-transport-security',
  'cross-origin-resource-policy',
]);

/**
 * The header fields every response carries, whichever way it is sent: the security headers that
 * apply to it, `X-Request-Id`, and `Connection: close` once shutdown began (a response sent after
 * `close()` began closes its socket instead of idling in keep-alive and holding the server open,
 * since `server.close()` only reaps sockets idle at that moment).
 *
 * HTML pages get every security header; other responses with a body those of `everyBodyFields`.
 * A 304 gets none: it updates the stored 200, whose fields stay in effect where the 304 names
 * none (RFC 9111 §4.3.4), so the 304 carries only what changes or RFC 9110 §15.4.5 requires.
 *
 * Responses sent through Fastify (`reply.send`) get them in one `onSend` hook. A prepared
 * response, the rates hot path, whose header fields are worked out once per snapshot, is written
 * with `sendPrepared`: one `writeHead` with a flat field list and one `end`, instead of a
 * `reply.header` call per field and Fastify's send pipeline
 * (docs/decisions/0003-prepared-response-heads.md).
 */
export class ResponseHeaders {
  /** Security headers of an HTML page: the whole set. */
  readonly #documentPairs: ReadonlyArray<readonly [string, string]>;
  /** Those of every other response with a body. */
  readonly #bodyPairs: ReadonlyArray<readonly [string, string]>;
  /** The same as a flat (name, value, …) list, as node:http's `writeHead` takes them. */
  readonly #bodyFields: readonly string[];
  /** And rendered as head lines (./field-lines.ts). */
  readonly #bodyLines: string;
  #closing = false;

  constructor(security: ReadonlyArray<readonly [string, string]>) {
    this.#documentPairs = security;
    this.#bodyPairs = security.filter(([name]) => everyBodyFields.has(name));
    this.#bodyFields = this.#bodyPairs.flat();
    this.#bodyLines = renderFields(this.#bodyFields);
  }

  /**
   * From now on every response says `Connection: close`, and node:http closes its connection after
   * it: at the start of a drain, and when the app closes.
   */
  closeConnections(): void {
    this.#closing = true;
  }

  install(app: FastifyInstance): void {
    app.addHook('preClose', (done) => {
      this.closeConnections();
      done();
    });
    app.addHook('onSend', (request, reply, payload, done) => {
      reply.header('x-request-id', request.id);
      // A route may set its own (the site pages set a CSP of their own); it keeps it.
      for (const [name, value] of this.#securityOf(reply))
        if (!reply.hasHeader(name)) reply.header(name, value);
      if (this.#closing) reply.header('connection', 'close');
      done(null, payload);
    });
  }

  /**
   * Sends `status` with `fields` (flat name, value, …), then `more` and the fields hooks set on the
   * reply so far (the rate-limit state), and the common ones, then `body` if given. `more` is the
   * caller's own array, which the hooked fields are appended to. The reply is hijacked, so Fastify
   * sends nothing more; `onResponse` hooks (the access log) still run when it finishes.
   */
  sendPrepared(
    reply: FastifyReply,
    status: number,
    fields: readonly string[],
    more: string[],
    body?: Buffer,
  ): void {
    const set = reply.getHeaders();
    for (const name in set) more.push(name, String(set[name]));
    reply.hijack();
    this.writePrepared(reply.raw, status, fields, more, reply.request.id, body);
  }

  /**
   * Writes a prepared response on node:http directly, in one `writeHead` and one `end`: the
   * security fields that apply, `fields`, `more` (Cache-Control, the rate-limit state), `X-Request-Id` and
   * `Connection: close` once shutdown began. How `sendPrepared` and the rates fast path
   * (../rates/fast-path.ts) send, so both send the same fields.
   */
  writePrepared(
    response: ServerResponse,
    status: number,
    fields: readonly string[],
    more: readonly string[],
    requestId: string,
    body?: Buffer,
  ): void {
    const head = status === 304 ? [...fields, ...more] : [...this.#bodyFields, ...fields, ...more];
    head.push('x-request-id', requestId);
    if (this.#closing) head.push('connection', 'close');
    response.writeHead(status, head);
    response.end(body);
  }

  /**
   * The head lines `writePrepared` would send for a response with these fields, rendered
   * (../rates/prepared-head.ts): the security fields that apply, `fieldLines` and `moreLines` (rendered,
   * or built from characters a field value may hold), then `X-Request-Id`. Null once shutdown
   * began: those responses carry `Connection: close`, which only `writePrepared` sends.
   */
  preparedLines(status: number, fieldLines: string, moreLines: string, requestId: string): string | null {
    if (this.#closing) return null;
    const security = status === 304 ? '' : this.#bodyLines;
    return `${security}${fieldLines}${moreLines}x-request-id: ${requestId}\r\n`;
  }

  #securityOf(reply: FastifyReply): ReadonlyArray<readonly [string, string]> {
    if (reply.statusCode === 304) return [];
    const type = reply.getHeader('content-type');
    return typeof type === 'string' && type.startsWith('text/html') ? this.#documentPairs : this.#bodyPairs;
  }
}
