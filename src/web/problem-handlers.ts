import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  type ErrorCode,
  errorCatalog,
  ProblemError,
  problem,
  problemContentType,
  problemDocument,
} from './error-catalog.ts';
import { pathOf } from './request-target.ts';

/** Methods a route could be registered for; the 405 answer lists those the path does support. */
const routableMethods = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

/** Maps Fastify's own 4xx errors (body parsing, bad URLs) to catalog codes. */
const codeForStatus: Record<number, ErrorCode> = {
  400: 'bad-request',
  404: 'not-found',
  405: 'method-not-allowed',
  406: 'not-acceptable',
  408: 'request-timeout',
  413: 'payload-too-large',
  415: 'unsupported-media-type',
  431: 'request-header-fields-too-large',
};

/** Turns anything thrown during a request into a catalog problem; unknown faults become a bare 500. */
function toProblem(error: FastifyError | Error): ProblemError {
  if (error instanceof ProblemError) return error;
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) return problem('invalid-request', fastifyError.message);
  const status = fastifyError.statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    // Fastify's own messages (FST_* codes) describe the request, not the server, so they are safe to show.
    const detail = fastifyError.code?.startsWith('FST_') ? fastifyError.message : undefined;
    return problem(codeForStatus[status] ?? 'bad-request', detail);
  }
  return problem('internal-error', 'The service failed to answer this request; the fault has been logged.');
}

function sendProblem(reply: FastifyReply, publicUrl: string, error: ProblemError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply
    .code(error.status)
    .type(problemContentType)
    .send(problemDocument(publicUrl, error, pathOf(reply.request.url)));
}

/**
 * One error handler and one not-found handler for the whole app (docs/architecture.md#errors): every error leaves as
 * an RFC 9457 problem document, never HTML, plain text or a stack trace. A path that exists for
 * other methods answers 405 with `Allow` (RFC 9110 §15.5.6) instead of 404.
 */
export function installProblemHandlers(app: FastifyInstance, publicUrl: string): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const problemError = toProblem(error);
    if (problemError.status >= 500) request.log.error({ err: error }, 'request failed');
    return sendProblem(reply, publicUrl, problemError);
  });

  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
    const path = pathOf(request.url);
    const allowed = routableMethods.filter((method) => app.findRoute({ method, url: path }) !== null);
    if (allowed.length > 0) {
      return sendProblem(
        reply,
        publicUrl,
        problem(
          'method-not-allowed',
          `${request.method} is not supported on ${path}; use ${allowed.join(', ')}.`,
          {},
          {
            Allow: allowed.join(', '),
          },
        ),
      );
    }
    return sendProblem(reply, publicUrl, problem('not-found', `Nothing exists at ${path}.`));
  });
}

/**
 * Fastify's `frameworkErrors`: errors its router raises before any route runs, such as a URL with
 * a broken percent-encoding (FST_ERR_BAD_URL); by default they get a non-problem JSON body.
 */
export function frameworkErrorHandler(publicUrl: string) {
  return (error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void => {
    sendProblem(reply, publicUrl, toProblem(error));
  };
}

/** A complete raw HTTP/1.1 problem response, for answers written before Fastify sees a request. */
function rawProblemResponse(
  publicUrl: string,
  code: ErrorCode,
  detail: string,
  extraHeaders: Record<string, string> = {},
): string {
  const status = errorCatalog[code].status;
  const body = problemDocument(publicUrl, problem(code, detail));
  const headers = {
    'Content-Type': problemContentType,
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
    ...extraHeaders,
  };
  const headerLines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${headerLines.join('')}\r\n${body}`;
}

/**
 * Node's HTTP parser rejects some requests before any handler runs: oversized headers (431 via
 * `maxHeaderSize`), malformed request lines or unknown methods (400), slow clients (408). Fastify's
 * default answer to those is a non-problem JSON body; this one keeps the error shape uniform.
 * https://nodejs.org/api/http.html#event-clienterror
 */
export function clientErrorHandler(publicUrl: string) {
  return (error: NodeJS.ErrnoException, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    let response: string;
    if (error.code === 'HPE_HEADER_OVERFLOW') {
      response = rawProblemResponse(
        publicUrl,
        'request-header-fields-too-large',
        'The request headers exceed the size the server accepts.',
      );
    } else if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      response = rawProblemResponse(publicUrl, 'request-timeout', 'The request was not completed in time.');
    } else {
      response = rawProblemResponse(publicUrl, 'bad-request', 'The request is not valid HTTP/1.1.');
    }
    if (socket.writable) socket.end(response);
    else socket.destroy();
  };
}

/**
 * An `Expect` other than `100-continue` never reaches Fastify either: Node emits
 * 'checkExpectation' and, without a listener, answers 417 with an empty body
 * (https://nodejs.org/api/http.html#event-checkexpectation). This answers the same status as a problem.
 */
export function expectationHandler(publicUrl: string) {
  return (request: IncomingMessage, response: ServerResponse): void => {
    const body = problemDocument(
      publicUrl,
      problem('expectation-failed', 'Only Expect: 100-continue is supported.'),
      pathOf(request.url ?? '/'),
    );
    response.writeHead(errorCatalog['expectation-failed'].status, {
      'Content-Type': problemContentType,
      'Content-Length': Buffer.byteLength(body),
      Connection: 'close',
    });
    response.end(body);
  };
}

/**
 * `CONNECT` never reaches Fastify: Node hands it to 'connect' listeners and, without one, drops
 * the connection silently. The service is no proxy, so it answers 405 like any unsupported method.
 */
export function connectHandler(publicUrl: string) {
  return (_request: unknown, socket: Socket): void => {
    socket.end(
      rawProblemResponse(
        publicUrl,
        'method-not-allowed',
        'CONNECT is not supported; the service is not a proxy.',
        {
          Allow: 'GET, HEAD',
        },
      ),
    );
  };
}
