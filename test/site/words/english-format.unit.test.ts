import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatDuration,
  formatRateTime,
  formatToman,
  formatUsdt,
} from '../../../src/site/words/english-format.ts';
import { durationFa } from '../../../src/site/words/persian-format.ts';

// The pages write numbers as en-US's Intl.NumberFormat does; the site formats them by hand (see
// english-format.ts), so Intl is the reference here.
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
    // Rounded as its decimal form reads (…8751205 → …875121), not as the double's binary value
    // (…87512049998…): the case fast-check found (seed 249097015).
    expect(formatUsdt(240375.8751205)).toBe('240,375.875121 USDT');
    expect(formatUsdt(999999.9999995)).toBe('1,000,000 USDT');
    expect(formatUsdt(0.09999999999995)).toBe('0.1 USDT');
    fc.assert(
      fc.property(fc.double({ min: 1e-12, max: 1e12, noNaN: true, noDefaultInfinity: true }), (amount) => {
        expect(formatUsdt(amount)).toBe(`${usdt.format(amount)} USDT`);
      }),
      { numRuns: 2000 },
    );
  });

  it('write a rate time in UTC with Tehran time beside it, and Tehran date when the day differs', () => {
    expect(formatRateTime('2025-06-01T10:19:42Z')).toBe('2025-06-01 10:19:42 UTC (13:49:42 Tehran)');
    expect(formatRateTime('2025-06-01T21:00:00Z')).toBe(
      '2025-06-01 21:00:00 UTC (2025-06-02 00:30:00 Tehran)',
    );
    expect(formatRateTime('not a time')).toBe('not a time');
  });

  it('write refresh intervals as people say them, never as a fraction of a minute', () => {
    expect(formatDuration(600)).toBe('10 minutes');
    expect(formatDuration(60)).toBe('1 minute');
    expect(formatDuration(30)).toBe('30 seconds');
    expect(formatDuration(1)).toBe('1 second');
    expect(formatDuration(90)).toBe('90 seconds');
    expect(durationFa(600)).toBe('۱۰ دقیقه');
    expect(durationFa(30)).toBe('۳۰ ثانیه');
  });
});
