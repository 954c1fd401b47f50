/**
 * A unit-sized factor between two prices of one coin (docs/sources.md#the-price-guard): ×10 or more,
 * or ÷10 or less. That is the size of a unit mistake (rial read as toman, a per-1,000 market read per
 * coin), so such a move is never published on one source's word, however long it lasts.
 */
export function isUnitSized(ratio: number): boolean {
  // A price divided by exactly ten can come out a hair above 0.1 in binary (338.547 ÷ 3385.47 is
  // 0.10000000000000002): the bounds allow for that rounding, nothing more.
  return ratio >= 10 * (1 - 1e-12) || ratio <= 0.1 * (1 + 1e-12);
}
