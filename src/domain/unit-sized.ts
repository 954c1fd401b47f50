/**
 * A unit-sized factor between two prices of one coin (docs/sources.md#the-price-guard): ten times or
 * more, or a tenth or less, give or take `tolerance` (the deviation limit, as a fraction). That is
 * the size of a unit mistake (rial read as toman, a per-1,000 market read per coin), so such a move
 * is never published on one source's word, however long it lasts. The tolerance is there because a
 * mistake's ratio is rarely exactly 10: usdt_irt is rounded to a whole toman (10,529.9 → 10,530 is
 * 0.100001 of 105,299), and the market moves between the two quotes compared.
 */
export function isUnitSized(ratio: number, tolerance: number): boolean {
  return ratio >= 10 / (1 + tolerance) || ratio <= (1 + tolerance) / 10;
}
