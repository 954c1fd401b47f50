/**
 * Numbers as exchanges write them in JSON: decimal strings ("97123.45", "1e-8") or plain JSON
 * numbers. Converted with Number() alone, never rounded, so a published ask is exactly the quoted one.
 */

/** A decimal in plain or exponent notation; no hex, no "Infinity", no spaces, no empty string. */
const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** `value` as a finite number when it is one or a numeric string; null otherwise. */
export function decimalValue(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string' || !DECIMAL.test(value)) return null;
  const number = Number(value);
  return Number.isFinite(number) ? number : null;
}
