/**
 * `POST /_simulator/condition`: how the exchanges answer apart from the faults, for drills against
 * a running simulator (docs/sources.md, "Binance", "Nobitex", "Wallex"):
 * - `{"exchange":"binance","event":"server-shutdown","closeAfterMs":1000}`: `serverShutdown` on
 *   every open stream connection, each closed `closeAfterMs` later;
 * - `{"exchange":"nobitex","condition":"placeholders|closed|normal","markets":["btc-rls"]}`:
 *   Nobitex's recorded placeholders, or `isClosed: true`, for the markets named (all when none);
 * - `{"exchange":"wallex","markets":"slow|gone|normal","delayMs":20000}`: `/v1/markets` slow or
 *   gone, its order books answering as ever.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readControlBody } from './control-body.ts';
import { json, sendJson } from './http-endpoints.ts';
import type { NobitexCondition } from './nobitex.ts';
import type { WallexMarketsCondition } from './wallex.ts';

export const CONDITION_CONTROL_PATH = '/_simulator/condition';

/** What the control surface can change. */
export interface Conditions {
  announceBinanceShutdown(closeAfterMs: number): number;
  setNobitexCondition(condition: NobitexCondition, markets?: readonly string[]): void;
  setWallexMarkets(condition: WallexMarketsCondition): void;
}

const USAGE =
  '{"exchange":"binance","event":"server-shutdown","closeAfterMs":n} | ' +
  '{"exchange":"nobitex","condition":"placeholders|closed|normal","markets":["btc-rls"]} | ' +
  '{"exchange":"wallex","markets":"slow|gone|normal","delayMs":n}';

const positiveInteger = (value: unknown): value is number => Number.isInteger(value) && (value as number) > 0;

/** What to do for a body, or the reason it cannot be done. */
function apply(body: Record<string, unknown>, conditions: Conditions): Record<string, unknown> | string {
  switch (body.exchange) {
    case 'binance': {
      const { event, closeAfterMs = 1_000 } = body;
      if (event !== 'server-shutdown') return 'binance: event must be server-shutdown';
      if (!positiveInteger(closeAfterMs)) return 'closeAfterMs must be a positive integer';
      return { told: conditions.announceBinanceShutdown(closeAfterMs) };
    }
    case 'nobitex': {
      const { condition, markets } = body;
      if (condition !== 'placeholders' && condition !== 'closed' && condition !== 'normal') {
        return 'nobitex: condition must be placeholders, closed or normal';
      }
      if (markets !== undefined && !(Array.isArray(markets) && markets.every((m) => typeof m === 'string'))) {
        return 'markets must be a list of Nobitex market keys like btc-rls';
      }
      try {
        conditions.setNobitexCondition(condition, markets as string[] | undefined);
      } catch (error) {
        return (error as Error).message;
      }
      return { nobitex: condition, markets: markets ?? 'all' };
    }
    case 'wallex': {
      const { markets, delayMs } = body;
      if (markets === 'slow') {
        if (!positiveInteger(delayMs)) return 'delayMs must be a positive integer';
        conditions.setWallexMarkets({ kind: 'slow', delayMs });
      } else if (markets === 'gone' || markets === 'normal') {
        conditions.setWallexMarkets({ kind: markets });
      } else {
        return 'wallex: markets must be slow, gone or normal';
      }
      return { wallex: markets };
    }
    default:
      return 'exchange must be binance, nobitex or wallex';
  }
}

export function serveConditionControl(
  req: IncomingMessage,
  res: ServerResponse,
  conditions: Conditions,
): void {
  if (req.method !== 'POST') {
    sendJson(res, json(405, { error: 'use POST' }, { allow: 'POST' }));
    return;
  }
  readControlBody(req, res, USAGE, (body) => {
    const result = apply(body, conditions);
    sendJson(
      res,
      typeof result === 'string' ? json(400, { error: result, usage: USAGE }) : json(200, result),
    );
  });
}
