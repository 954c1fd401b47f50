/**
 * The JSON body of a POST to one of the simulator's control paths (`/_simulator/…`): read whole,
 * at most `MAX_BODY_BYTES`; a body too large or not JSON is answered with 413 or 400 here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { json, sendJson } from './http-endpoints.ts';

/** A control request is a few dozen bytes; anything this big is not one. */
const MAX_BODY_BYTES = 4096;

/** Calls `use` with the parsed body, or answers the client's mistake itself; `usage` says what to send. */
export function readControlBody(
  req: IncomingMessage,
  res: ServerResponse,
  usage: string,
  use: (body: Record<string, unknown>) => void,
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      sendJson(res, json(413, { error: 'body too large' }));
      req.destroy();
      return;
    }
    chunks.push(chunk);
  });
  req.on('end', () => {
    if (res.headersSent) return;
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      sendJson(res, json(400, { error: `body must be JSON: ${usage}` }));
      return;
    }
    use(
      typeof body === 'object' && body !== null && !Array.isArray(body)
        ? (body as Record<string, unknown>)
        : {},
    );
  });
}
