import { describe, expect, it } from 'vitest';
import { unitFaultsDrill } from '../../drills/unit-faults.ts';
import { sayAs, testTeardown } from '../support/drill-test.ts';

describe('the unit-faults drill, short', () => {
  it('never publishes ×10, ÷10 or ×1,000, prices the coins from the next source, and publishes a crash both sources show', {
    timeout: 240_000,
  }, async () => {
    const result = await unitFaultsDrill(
      { faultSeconds: 17, refresh: 2 },
      sayAs('unit-faults'),
      testTeardown,
    );
    expect(result.unitErrors).toEqual([]);
    expect(result.phases.map((phase) => `${phase.exchange} ${phase.fault}`)).toEqual([
      'binance times-ten',
      'binance tenth',
      'binance absurd',
      'nobitex absurd',
    ]);
    for (const phase of result.phases.filter((candidate) => candidate.exchange === 'binance')) {
      expect(phase.rowsRead).toBeGreaterThan(0);
      expect({ [phase.fault]: phase.rowsFromFaulty }).toEqual({ [phase.fault]: 0 });
      expect(phase.held).toBeGreaterThan(0);
    }
    for (const phase of result.phases) expect(phase.heldSources).toEqual([phase.exchange]);
    expect(result.crashPublishedAfter).not.toBeNull();
    expect(result.crashPublishedAfter as number).toBeLessThanOrEqual(3 + 2 + 3);
    expect(result.ok).toBe(true);
  });
});
