import { describe, expect, it } from 'vitest';
import { isUnitSized } from '../../src/domain/unit-sized.ts';

describe('isUnitSized', () => {
  it('counts ×10 or more and ÷10 or less, within the deviation limit of ten', () => {
    for (const ratio of [10, 1000, 0.1, 0.001, 338.547 / 3385.47, 10_530 / 105_299, 9.6, 0.104])
      expect({ ratio, unitSized: isUnitSized(ratio, 0.05) }).toEqual({ ratio, unitSized: true });
  });

  it('leaves every smaller move, however large, to the jump guard', () => {
    for (const ratio of [9.4, 0.107, 0.4, 2.5, 1])
      expect({ ratio, unitSized: isUnitSized(ratio, 0.05) }).toEqual({ ratio, unitSized: false });
  });
});
