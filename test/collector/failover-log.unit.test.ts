import { describe, expect, it } from 'vitest';
import type { RouteMove } from '../../src/collector/coin-route.ts';
import { logRouteMoves } from '../../src/collector/failover-log.ts';
import { createLogger } from '../../src/logger.ts';

interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

function capture() {
  const lines: LogLine[] = [];
  const logger = createLogger('info', { write: (line: string) => lines.push(JSON.parse(line) as LogLine) });
  return { lines, logger };
}

const move = (symbol: string, overrides: Partial<RouteMove> = {}): RouteMove => ({
  symbol,
  currency: 'usdt',
  from: 'binance',
  to: 'nobitex',
  kind: 'failover',
  reason: 'refused: HTTP 451: Service unavailable from a restricted location',
  toPrimary: false,
  ...overrides,
});

describe('logRouteMoves', () => {
  it('writes one warning per source event, however many coins moved, with the count and the first symbols', () => {
    const { lines, logger } = capture();
    const symbols = Array.from({ length: 150 }, (_, index) => `C${index}`);
    logRouteMoves(
      logger,
      symbols.map((symbol) => move(symbol)),
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 40,
      msg: 'coin failed over',
      currency: 'usdt',
      from: 'binance',
      to: 'nobitex',
      reason: 'refused: HTTP 451: Service unavailable from a restricted location',
      count: 150,
      symbols: symbols.slice(0, 20),
    });
  });

  it('keeps apart moves that differ in currency, sources, reason or kind', () => {
    const { lines, logger } = capture();
    logRouteMoves(logger, [
      move('BTC'),
      move('ETH'),
      move('BTC', {
        currency: 'toman',
        from: 'wallex',
        to: 'nobitex',
        reason: 'no quote for more than 120 s',
      }),
      move('DOGE', {
        from: 'nobitex',
        to: 'binance',
        kind: 'return',
        reason: 'usable again for 300 s',
        toPrimary: true,
      }),
      move('TON', { from: 'wallex', to: 'nobitex', kind: 'return', reason: 'usable again for 300 s' }),
    ]);
    expect(
      lines.map(({ level, msg, currency, count, symbols }) => ({ level, msg, currency, count, symbols })),
    ).toEqual([
      { level: 40, msg: 'coin failed over', currency: 'usdt', count: 2, symbols: ['BTC', 'ETH'] },
      { level: 40, msg: 'coin failed over', currency: 'toman', count: 1, symbols: ['BTC'] },
      { level: 30, msg: 'coin returned to its primary', currency: 'usdt', count: 1, symbols: ['DOGE'] },
      { level: 30, msg: 'coin returned to an earlier source', currency: 'usdt', count: 1, symbols: ['TON'] },
    ]);
  });
});
