import { describe, expect, it } from 'vitest';
import { isUnitSized } from '../../src/domain/unit-sized.ts';

describe('isUnitSized', () => {
  it('counts ×10 or more and ÷10 or less, including a tenth that binary division leaves a hair above 0.1', () => {
    expect(isUnitSized(10)).toBe(true);
    expect(isUnitSized(1000)).toBe(true);
    expect(isUnitSized(0.1)).toBe(true);
    expect(isUnitSized(338.547 / 3385.47)).toBe(true);
    expect(isUnitSized(0.001)).toBe(true);
  });

  it('leaves every smaller move, however large, to the jump guard', () => {
    expect(isUnitSized(9.99)).toBe(false);
    expect(isUnitSized(0.1001)).toBe(false);
    expect(isUnitSized(0.4)).toBe(false);
    expect(isUnitSized(1)).toBe(false);
  });
});
