import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatToman, formatUsdt } from '../../src/site/format.ts';

// The pages write numbers as en-US's Intl.NumberFormat does; the site formats them by hand (see
// format.ts), so Intl is the reference here.
const toman = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const usdt = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 12 });

describe('site number formats', () => {
  it('write toman amounts grouped in thousands, as integers', () => {
    expect(formatToman(4123438813)).toBe('4,123,438,813 toman');
    expect(formatToman(999)).toBe('999 toman');
    expect(formatToman(0)).toBe('0 toman');
    expect(formatToman(null)).toBe('not available');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (amount) => {
        expect(formatToman(amount)).toBe(`${toman.format(amount)} toman`);
      }),
    );
  });

  it('write tether amounts with up to 12 significant digits, never in exponent notation', () => {
    expect(formatUsdt(97250.12)).toBe('97,250.12 USDT');
    expect(formatUsdt(0.00001234)).toBe('0.00001234 USDT');
    expect(formatUsdt(1e-7)).toBe('0.0000001 USDT');
    expect(formatUsdt(1)).toBe('1 USDT');
    fc.assert(
      fc.property(fc.double({ min: 1e-12, max: 1e12, noNaN: true, noDefaultInfinity: true }), (amount) => {
        expect(formatUsdt(amount)).toBe(`${usdt.format(amount)} USDT`);
      }),
      { numRuns: 2000 },
    );
  });
});
