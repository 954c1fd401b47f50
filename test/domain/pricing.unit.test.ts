import { describe, expect, it } from 'vitest';
import {
  priceRejection,
  sellIrtFrom,
  sellUsdtFromAsk,
  tomanFromRial,
  wholeToman,
} from '../../src/domain/pricing.ts';

describe('tomanFromRial', () => {
  it('divides rial by ten: Nobitex 1,052,990 rial is 105,299 toman', () => {
    expect(tomanFromRial(1_052_990)).toBe(105_299);
    expect(tomanFromRial(10)).toBe(1);
    expect(tomanFromRial(0)).toBe(0);
  });

  it('keeps the fraction of a toman: a coin worth a few rial is not rounded away', () => {
    expect(tomanFromRial(1_052_995)).toBe(105_299.5);
    expect(tomanFromRial(4)).toBe(0.4);
    expect(tomanFromRial(274)).toBe(27.4);
    expect(tomanFromRial(27.4)).toBe(2.74);
    expect(tomanFromRial(0.0003)).toBe(0.00003);
  });

  it('stays exact for 7- and 8-digit rial rates', () => {
    for (const rial of [1_000_000, 9_999_990, 10_000_000, 99_999_990]) {
      expect(tomanFromRial(rial)).toBe(rial / 10);
      expect(Number.isInteger(tomanFromRial(rial))).toBe(true);
    }
  });
});

describe('wholeToman', () => {
  it('rounds a toman amount that is not whole to the nearest toman, halves up', () => {
    expect(wholeToman(105_299)).toBe(105_299);
    expect(wholeToman(105_299.4)).toBe(105_299);
    expect(wholeToman(105_299.5)).toBe(105_300);
    expect(wholeToman(105_299.9)).toBe(105_300);
    expect(wholeToman(0.4)).toBe(0);
    expect(wholeToman(0.5)).toBe(1);
  });
});

describe('sellUsdtFromAsk', () => {
  it('publishes the ask exactly as quoted when there is no markup', () => {
    expect(sellUsdtFromAsk(64_000.01, 0)).toBe(64_000.01);
    expect(sellUsdtFromAsk(0.00001234, 0)).toBe(0.00001234);
  });

  it('adds the markup without binary-float noise', () => {
    expect(sellUsdtFromAsk(0.1, 0.5)).toBe(0.1005);
    expect(sellUsdtFromAsk(60_000, 1)).toBe(60_600);
    expect(sellUsdtFromAsk(100, -2)).toBe(98);
  });
});

describe('sellIrtFrom', () => {
  it('is round(sell_usdt × usdt_irt) in toman', () => {
    expect(sellIrtFrom(64_000.5, 105_299)).toBe(6_739_188_650);
    expect(sellIrtFrom(0.123456, 105_299)).toBe(13_000);
    expect(sellIrtFrom(1, 105_299)).toBe(105_299);
  });

  it('is in toman, not rial: one tether at 1,052,990 rial costs 105,299, not ten times that', () => {
    const usdtIrt = 105_299;
    expect(sellIrtFrom(1, usdtIrt)).not.toBe(1_052_990);
    expect(sellIrtFrom(2, usdtIrt)).toBe(210_598);
  });

  it('is null while the tether rate is unknown', () => {
    expect(sellIrtFrom(64_000, null)).toBeNull();
  });

  it('is null when the product rounds to 0 toman, and 1 from half a toman up', () => {
    expect(sellIrtFrom(0.000001, 105_299)).toBeNull();
    expect(sellIrtFrom(0.0000047, 105_299)).toBeNull();
    expect(sellIrtFrom(0.0000048, 105_299)).toBe(1);
  });
});

describe('priceRejection', () => {
  it('accepts a positive, finite price within the jump guard', () => {
    expect(priceRejection(100, null, 50)).toBeNull();
    expect(priceRejection(149, 100, 50)).toBeNull();
    expect(priceRejection(51, 100, 50)).toBeNull();
    expect(priceRejection(150, 100, 50)).toBeNull();
  });

  it('rejects non-numbers and non-positive prices', () => {
    expect(priceRejection(Number.NaN, 100, 50)).toBe('not-a-number');
    expect(priceRejection(Number.POSITIVE_INFINITY, null, 50)).toBe('not-a-number');
    expect(priceRejection(0, null, 50)).toBe('not-positive');
    expect(priceRejection(-3, 100, 50)).toBe('not-positive');
  });

  it('rejects absurd jumps either way relative to the last accepted price', () => {
    expect(priceRejection(150.01, 100, 50)).toBe('absurd-jump');
    expect(priceRejection(49.99, 100, 50)).toBe('absurd-jump');
    expect(priceRejection(100_000, 100, 50)).toBe('absurd-jump');
    expect(priceRejection(100_000, 100, 200_000)).toBeNull();
  });
});
