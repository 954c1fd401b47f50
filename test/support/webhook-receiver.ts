import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { onTestFinished } from 'vitest';

/** One request the receiver got. */
export interface Received {
  method: string;
  contentType: string | undefined;
  body: string;
}

/**
 * A real HTTP server standing in for an operator's webhook: it answers the n-th request with
 * `answer(n)` (a status, or a promise of one to hold the answer back), records every request, and
 * closes when the test ends.
 */
export async function startWebhookReceiver(answer: (n: number) => number | Promise<number>) {
  const received: Received[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      received.push({
        method: request.method ?? '',
        contentType: request.headers['content-type'],
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const status = await answer(received.length);
      response.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hooks/nerkh?token=secret-token`, received };
}
