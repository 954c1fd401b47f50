import { describe, expect, it } from 'vitest';
import { compareAsks } from '../../src/domain/source-deviation.ts';

describe('compareAsks', () => {
  it('has nothing to compare with fewer than two sources', () => {
    expect(compareAsks([], 5)).toBeNull();
    expect(compareAsks([{ source: 'nobitex', ask: 105_299 }], 5)).toBeNull();
  });

  it('finds two sources within the allowed percentage in line, with their spread', () => {
    const result = compareAsks(
      [
        { source: 'bitpin', ask: 105_500 },
        { source: 'nobitex', ask: 105_299 },
      ],
      5,
    );
    expect(result?.spreadPct).toBeCloseTo(0.1909, 3);
    expect(result?.sources.map((s) => [s.source, s.deviating, s.unitHint])).toEqual([
      ['bitpin', false, null],
      ['nobitex', false, null],
    ]);
    expect(result?.sources[0]?.deviationPct).toBeCloseTo(0.1909, 3);
  });

  it('flags both of two sources a rial-for-toman mistake sets apart, naming the unit', () => {
    // A source configured as rial where it quotes toman: its asks are divided by 10 once too often.
    const result = compareAsks(
      [
        { source: 'bitpin', ask: 10_524.9 },
        { source: 'nobitex', ask: 105_299 },
      ],
      5,
    );
    expect(result?.spreadPct).toBeCloseTo(900.47, 1);
    expect(result?.sources).toMatchObject([
      { source: 'bitpin', reference: 105_299, deviating: true, unitHint: 'ten-times-low' },
      { source: 'nobitex', reference: 10_524.9, deviating: true, unitHint: 'ten-times-high' },
    ]);
    expect(result?.sources[0]?.deviationPct).toBeCloseTo(-90.005, 2);
  });

  it('with three or more, compares each with the median and flags only the one that is off', () => {
    const result = compareAsks(
      [
        { source: 'ramzinex', ask: 1_052_990 },
        { source: 'nobitex', ask: 105_299 },
        { source: 'wallex', ask: 105_410 },
      ],
      5,
    );
    expect(result?.sources.map((s) => [s.source, s.reference, s.deviating, s.unitHint])).toEqual([
      ['ramzinex', 105_410, true, 'ten-times-high'],
      ['nobitex', 105_410, false, null],
      ['wallex', 105_410, false, null],
    ]);
  });

  it('flags a deviation beyond the percentage that is no unit mistake without a hint, and honours the percentage', () => {
    const asks = [
      { source: 'a', ask: 100 },
      { source: 'b', ask: 107 },
      { source: 'c', ask: 100.5 },
    ];
    expect(compareAsks(asks, 5)?.sources.map((s) => [s.deviating, s.unitHint])).toEqual([
      [false, null],
      [true, null],
      [false, null],
    ]);
    expect(compareAsks(asks, 10)?.sources.every((s) => !s.deviating)).toBe(true);
  });
});
