import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * A connection as node:http keeps it: `_httpMessage` is the response being written on it, set when
 * a request's head has been read and cleared when that response is done (lib/_http_server.js;
 * node:http's own `closeIdleConnections` reads it too).
 */
interface HttpSocket extends Socket {
  _httpMessage?: ServerResponse | null;
}

/**
 * Lets `app.close()` finish once the requests in flight are answered, whoever else holds a
 * connection. node:http's `server.close()` ends only the connections idle after a response: one
 * that opened and sent nothing yet (a browser's preconnect, a balancer's TCP check, a port scan) or
 * only part of a request head is left open, and as `close()` also stops the timer that enforces
 * `headersTimeout`, it holds the close until the client hangs up, in practice past the stop's 15 s
 * bound (docs/operations.md#shutdown). So when the app closes, every connection with no request in
 * flight is ended at once, and each of the others once its response is done: nothing a client is
 * owed is cut.
 */
export function endConnectionsAtClose(app: FastifyInstance): void {
  const open = new Set<HttpSocket>();
  // Per connection, not per request: nothing is added to the request path.
  app.server.on('connection', (socket: HttpSocket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  app.addHook('preClose', (done) => {
    // Fastify calls server.close() right after its preClose hooks: from the next turn no
    // connection is accepted, and the open ones are all there are.
    setImmediate(() => {
      for (const socket of open) endWhenAnswered(socket);
    });
    done();
  });
}

/** Ends `socket` now if no request is in flight on it, else once the response (and any queued after it) is done. */
function endWhenAnswered(socket: HttpSocket): void {
  const response = socket._httpMessage;
  if (response == null) {
    socket.destroy();
    return;
  }
  // 'close' comes after node:http detached the response: the socket then holds the next
  // pipelined response, or none.
  response.once('close', () => endWhenAnswered(socket));
}
