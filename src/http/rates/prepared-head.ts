import { IncomingMessage, type Server, ServerResponse, STATUS_CODES } from 'node:http';
import { Socket } from 'node:net';
import { flatString } from '../../flat-string.ts';

/**
 * The part of node:http's ServerResponse its send path reads the head from (lib/_http_outgoing.js):
 * `writeHead` renders the head into `_header` and clears `_headerSent`, and the first write sends
 * `_header` in front of the body. These two fields have kept their meaning since Node.js 0.x.
 */
interface OutgoingHead {
  _header: string | null;
  _headerSent: boolean;
}

/** True when this Node.js's ServerResponse keeps its head as `OutgoingHead` describes. */
function nodeKeepsHeadInHeader(): boolean {
  const probe = new ServerResponse(new IncomingMessage(new Socket())) as unknown as OutgoingHead & {
    _send?: unknown;
  };
  return probe._header === null && probe._headerSent === false && typeof probe._send === 'function';
}

/**
 * Sends responses whose head was rendered ahead of time (the rates fast path, ./fast-path.ts):
 * the status line, the given blocks of fields, then what node:http itself adds to a keep-alive
 * response (`Date`, `Connection: keep-alive`, `Keep-Alive: timeout=…`), in `writeHead`'s order and
 * spelling, through node:http's own send path. What it saves is `writeHead`'s work per field
 * (two validating regular expressions, a lower-casing and a string concatenation each), for the
 * dozen fields of a rates response (docs/decisions/0003-prepared-response-heads.md). The fields
 * were validated once, when their blocks were rendered (`renderFields`, ../edge/field-lines.ts),
 * or are built from values whose characters are fixed (numbers, request ids of
 * `[A-Za-z0-9._:-]`).
 *
 * Only the common case is written here: an HTTP/1.1 connection that stays open after the response,
 * with no per-socket request limit. When the connection closes after this response (`Connection:
 * close`), for HTTP/1.0, when a request limit per socket is set, or when this
 * Node.js keeps its head differently, `send` returns false and the caller writes the head with
 * `writeHead`, which handles every case. A socket test compares both heads byte for byte.
 */
export class PreparedHeads {
  readonly #server: Server;
  readonly #supported = nodeKeepsHeadInHeader();
  #endKeepAliveMs = Number.NaN;
  #endLines = '';

  constructor(server: Server) {
    this.#server = server;
  }

  /**
   * Sends `status` with `fields` (rendered lines) and `body`, or returns false, having done
   * nothing, when node:http must write this head itself (see above).
   */
  send(response: ServerResponse, status: 200 | 304, fields: string, body: Buffer | undefined): boolean {
    const request = response.req;
    if (
      !this.#supported ||
      // HTTP/1.1: node:http keeps an HTTP/1.0 connection open only for a response with a length.
      request.httpVersionMajor !== 1 ||
      request.httpVersionMinor !== 1 ||
      !response.shouldKeepAlive ||
      !response.sendDate ||
      response.headersSent ||
      (this.#server.maxRequestsPerSocket ?? 0) > 0
    ) {
      return false;
    }
    response.statusCode = status;
    const head = response as unknown as OutgoingHead;
    head._header = `${statusLines[status]}${fields}${this.#end()}`;
    head._headerSent = false;
    response.end(body);
    return true;
  }

  /**
   * What node:http ends a keep-alive response's head with: the `Date` line (the current second as
   * an IMF-fixdate, RFC 9110 §5.6.7), the lines for the server's keep-alive timeout, and the empty
   * line; made when first needed in a second, or when the timeout changes. A timer forgets them at
   * the end of the second, as node:http keeps its own `Date` value (`utcDate` in
   * lib/internal/http.js): reading the clock per response is a call into V8's runtime each time.
   */
  #end(): string {
    const timeoutMs = this.#server.keepAliveTimeout;
    if (this.#endLines === '' || timeoutMs !== this.#endKeepAliveMs) {
      const now = new Date();
      this.#endKeepAliveMs = timeoutMs;
      this.#endLines = flatString(
        'Date: ',
        now.toUTCString(),
        '\r\nConnection: keep-alive\r\n',
        timeoutMs > 0 ? `Keep-Alive: timeout=${Math.floor(timeoutMs / 1000)}\r\n` : '',
        '\r\n',
      );
      setTimeout(() => {
        this.#endLines = '';
      }, 1000 - now.getMilliseconds()).unref();
    }
    return this.#endLines;
  }
}

/** The status lines `send` writes, each one flat string. */
const statusLines = {
  200: flatString('HTTP/1.1 200 ', STATUS_CODES[200] as string, '\r\n'),
  304: flatString('HTTP/1.1 304 ', STATUS_CODES[304] as string, '\r\n'),
} as const;
