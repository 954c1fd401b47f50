import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { onTestFinished } from 'vitest';

/** One answer: status, body text, headers; `delayMs` holds it back that long. */
export interface ScriptedAnswer {
  status: number;
  body: string;
  headers?: Record<string, string>;
  delayMs?: number;
}

/** What the server saw of one request. */
export interface SeenRequest {
  /** Epoch ms the request arrived. */
  at: number;
  /** Path and query, e.g. `/market/stats?srcCurrency=btc&dstCurrency=rls,usdt`. */
  url: string;
  headers: http.IncomingHttpHeaders;
}

/**
 * A local HTTP server that answers with what `answer` says for each request (by its number, from 0,
 * and its URL) and records every request: an exchange's documented answers replayed over a real
 * socket. Closed when the test ends.
 */
export async function startAnswerServer(
  answer: (index: number, url: string) => ScriptedAnswer,
): Promise<{ url: string; seen: SeenRequest[] }> {
  const seen: SeenRequest[] = [];
  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    const index = seen.length;
    seen.push({ at: Date.now(), url, headers: req.headers });
    const scripted = answer(index, url);
    const send = () => {
      if (res.destroyed) return;
      res.writeHead(scripted.status, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(scripted.body),
        ...scripted.headers,
      });
      res.end(scripted.body);
    };
    if (scripted.delayMs) setTimeout(send, scripted.delayMs);
    else send();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}
