import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { downsample, type PricePoint, seriesBySymbol } from '../../src/domain/price-history.ts';

const startMs = Date.parse('2026-03-01T00:00:00.000Z');
const minute = 60_000;
const at = (index: number) => new Date(startMs + index * 10 * minute).toISOString();

describe('downsample', () => {
  it('returns a series that is short enough as it is', () => {
    const points = [0, 1, 2].map((index) => ({ at: at(index), sell_usdt: index + 1, sell_irt: null }));
    expect(downsample(points, { from: at(0), to: at(2), maxPoints: 6 })).toEqual(points);
  });

  it('keeps at most maxPoints, in time order, with the first, the last and every extreme in both currencies', () => {
    const series = fc.array(
      fc.record({
        usdt: fc.double({ min: 1e-8, max: 1e6, noNaN: true }),
        irt: fc.option(fc.integer({ min: 1, max: 1e12 }), { nil: null }),
      }),
      { minLength: 1, maxLength: 400 },
    );
    fc.assert(
      fc.property(series, fc.integer({ min: 6, max: 120 }), (prices, maxPoints) => {
        const points: PricePoint[] = prices.map((price, index) => ({
          at: at(index),
          sell_usdt: price.usdt,
          sell_irt: price.irt,
        }));
        const thinned = downsample(points, { from: at(0), to: at(points.length - 1), maxPoints });
        expect(thinned.length).toBeLessThanOrEqual(maxPoints);
        expect(thinned[0]).toBe(points[0]);
        expect(thinned.at(-1)).toBe(points.at(-1));
        const times = thinned.map((point) => point.at);
        expect(times).toEqual([...new Set(times)].sort());
        const usdt = (list: PricePoint[]) => list.map((point) => point.sell_usdt);
        const irt = (list: PricePoint[]) =>
          list.flatMap((point) => (point.sell_irt === null ? [] : [point.sell_irt]));
        expect(Math.min(...usdt(thinned))).toBe(Math.min(...usdt(points)));
        expect(Math.max(...usdt(thinned))).toBe(Math.max(...usdt(points)));
        if (irt(points).length > 0) {
          expect(Math.min(...irt(thinned))).toBe(Math.min(...irt(points)));
          expect(Math.max(...irt(thinned))).toBe(Math.max(...irt(points)));
        }
      }),
    );
  });
});

describe('seriesBySymbol', () => {
  it('groups rows by symbol, keeping each series oldest first', () => {
    const rows = [0, 1, 2].flatMap((index) => [
      { symbol: 'BTC', at: at(index), sell_usdt: 100 + index, sell_irt: 1000 + index },
      { symbol: 'ETH', at: at(index), sell_usdt: 10 + index, sell_irt: null },
    ]);
    const grouped = seriesBySymbol(rows, { from: at(0), to: at(2), maxPoints: 10 });
    expect([...grouped.keys()]).toEqual(['BTC', 'ETH']);
    expect(grouped.get('ETH')).toEqual(
      [0, 1, 2].map((index) => ({ at: at(index), sell_usdt: 10 + index, sell_irt: null })),
    );
  });
});
