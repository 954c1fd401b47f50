/**
 * `GET|POST /_simulator/fault`: the simulator's own control surface, for drills against a running
 * simulator. GET answers the current fault of each exchange; POST
 * `{"fault": "...", "target": "binance|nobitex|wallex|panel|all", "durationMs": n}` switches it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readControlBody } from './control-body.ts';
import { FAULT_TARGETS, type Faults, isFault, isTarget, SIMULATOR_FAULTS } from './faults.ts';
import { json, sendJson } from './http-endpoints.ts';

export const FAULT_CONTROL_PATH = '/_simulator/fault';

export function serveFaultControl(req: IncomingMessage, res: ServerResponse, faults: Faults): void {
  if (req.method === 'GET') {
    sendJson(res, json(200, faults.state()));
    return;
  }
  if (req.method !== 'POST') {
    sendJson(res, json(405, { error: 'use GET or POST' }, { allow: 'GET, POST' }));
    return;
  }
  readControlBody(req, res, `{"fault": "...", "target": "${FAULT_TARGETS.join('|')}"}`, (body) => {
    const { fault, target = 'all', durationMs } = body;
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
