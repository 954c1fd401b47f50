import { describe, expect, it } from 'vitest';
import { parseTetherStats } from '../../src/feeds/nobitex-stats.ts';

describe('parseTetherStats', () => {
  const body = (market: Record<string, unknown>, status = 'ok') =>
    JSON.stringify({ status, stats: { 'usdt-rls': { isClosed: false, bestBuy: '1050000', ...market } } });

  it('converts rial to toman', () => {
    expect(parseTetherStats(body({ bestSell: '1052990' }))).toEqual({ kind: 'quote', toman: 105299 });
  });

  it.each([
    ['a failed status', body({ bestSell: '1052990' }, 'failed'), 'status-not-ok'],
    ['another market only', JSON.stringify({ status: 'ok', stats: { 'btc-rls': {} } }), 'market-missing'],
    ['a closed market', body({ bestSell: '1052990', isClosed: true }), 'market-closed'],
    ['a numeric bestSell', body({ bestSell: 1052990 }), 'best-sell-not-a-string'],
    ['an empty bestSell', body({ bestSell: '' }), 'best-sell-not-a-number'],
    ['a zero bestSell', body({ bestSell: '0' }), 'best-sell-not-positive'],
    ['a bestSell under one toman', body({ bestSell: '4' }), 'best-sell-not-positive'],
  ])('rejects %s', (_what, text, reason) => {
    expect(parseTetherStats(text)).toEqual({ kind: 'rejected', reason });
  });
});
