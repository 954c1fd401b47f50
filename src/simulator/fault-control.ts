/**
 * `GET|POST /_simulator/fault`: the simulator's own control surface, for drills against a running
 * simulator. GET answers the current fault of each exchange; POST
 * `{"fault": "...", "target": "binance|nobitex|wallex|panel|all", "durationMs": n}` switches it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FAULT_TARGETS, type Faults, isFault, isTarget, SIMULATOR_FAULTS } from './faults.ts';
import { json, sendJson } from './http-endpoints.ts';

export const FAULT_CONTROL_PATH = '/_simulator/fault';

/** A fault request is a few dozen bytes; anything this big is not one. */
const MAX_BODY_BYTES = 4096;

export function serveFaultControl(req: IncomingMessage, res: ServerResponse, faults: Faults): void {
  if (req.method === 'GET') {
    sendJson(res, json(200, faults.state()));
    return;
  }
  if (req.method !== 'POST') {
    sendJson(res, json(405, { error: 'use GET or POST' }, { allow: 'GET, POST' }));
    return;
  }
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
      sendJson(
        res,
        json(400, { error: `body must be JSON: {"fault": "...", "target": "${FAULT_TARGETS.join('|')}"}` }),
      );
      return;
    }
    const { fault, target = 'all', durationMs } = (body ?? {}) as Record<string, unknown>;
    if (!isFault(fault)) {
      sendJson(res, json(400, { error: `fault must be one of ${SIMULATOR_FAULTS.join(', ')}` }));
      return;
    }
    if (!isTarget(target)) {
      sendJson(res, json(400, { error: `target must be one of ${FAULT_TARGETS.join(', ')}` }));
      return;
    }
    if (durationMs !== undefined && !(Number.isInteger(durationMs) && (durationMs as number) > 0)) {
      sendJson(res, json(400, { error: 'durationMs must be a positive integer' }));
      return;
    }
    faults.set(fault, target, durationMs === undefined ? {} : { durationMs: durationMs as number });
    sendJson(res, json(200, faults.state()));
  });
}
