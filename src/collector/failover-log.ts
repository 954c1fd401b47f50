import type { Logger } from '../logger.ts';
import type { RouteMove } from './coin-route.ts';

/** Symbols named on one line at most; the count says how many moved. */
const symbolsPerLine = 20;

function messageOf(move: RouteMove): string {
  if (move.kind === 'failover') return 'coin failed over';
  return move.toPrimary ? 'coin returned to its primary' : 'coin returned to an earlier source';
}

/**
 * Logs the coins that moved between sources in one pass, one line per event: when a source
 * refuses, all its coins move together, and 150 lines saying the same thing would bury it.
 */
export function logRouteMoves(logger: Logger, moves: readonly RouteMove[]): void {
  const groups = new Map<string, RouteMove[]>();
  for (const move of moves) {
    const key = `${messageOf(move)}\u0000${move.currency}\u0000${move.from}\u0000${move.to}\u0000${move.reason}`;
    const group = groups.get(key);
    if (group) group.push(move);
    else groups.set(key, [move]);
  }
  for (const group of groups.values()) {
    const first = group[0] as RouteMove;
    const fields = {
      currency: first.currency,
      from: first.from,
      to: first.to,
      reason: first.reason,
      count: group.length,
      symbols: group.slice(0, symbolsPerLine).map((move) => move.symbol),
    };
    if (first.kind === 'failover') logger.warn(fields, messageOf(first));
    else logger.info(fields, messageOf(first));
  }
}
