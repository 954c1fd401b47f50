/**
 * How the website writes numbers and times for people. The API publishes raw values; pages add
 * grouping and units so `4123438813` reads as `4,123,438,813 toman`.
 */

/**
 * Numbers are written as en-US's Intl.NumberFormat writes them (the tests hold them to it), by
 * hand: the first Intl formatter a process makes maps ICU's data into memory, for digit grouping
 * alone (docs/decisions/0025-persian-formats-on-first-use.md).
 */
function groupThousands(integerDigits: string): string {
  return integerDigits.replace(/\B(?=(\d{3})+$)/g, ',');
}

/** `value` rounded to `digits` significant digits, in plain decimal notation (never `1e-7`), grouped. */
function plainDecimal(value: number, digits: number): string {
  const rounded = Number(value.toPrecision(digits));
  if (rounded === 0) return '0';
  const magnitude = Math.floor(Math.log10(Math.abs(rounded)));
  const fixed = rounded.toFixed(Math.min(100, Math.max(0, digits - 1 - magnitude)));
  const [integerPart = '', fraction = ''] = fixed.split('.');
  const sign = integerPart.startsWith('-') ? '-' : '';
  const trimmed = fraction.replace(/0+$/, '');
  return `${sign}${groupThousands(integerPart.replace('-', ''))}${trimmed === '' ? '' : `.${trimmed}`}`;
}

export function formatToman(toman: number | null): string {
  return toman === null ? 'not available' : `${groupThousands(String(Math.round(toman)))} toman`;
}

/** A price without its unit, grouped, every significant digit the API publishes kept (for chart axes). */
export function formatAmount(value: number): string {
  return plainDecimal(value, 12);
}

/** Tether amounts keep every significant digit the API publishes (small coins trade at 0.0000x). */
export function formatUsdt(usdt: number): string {
  return `${formatAmount(usdt)} USDT`;
}

export function formatChange(percent: number | null): string {
  if (percent === null) return 'not available';
  const sign = percent > 0 ? '+' : percent < 0 ? '−' : '';
  return `${sign}${Math.abs(percent).toFixed(2)}%`;
}

/** `2025-06-01 10:19:42 UTC`: unambiguous, sortable, and readable without a locale. */
export function formatTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** How old a moment is, in the unit a person judges freshness by: seconds up to a minute, then minutes, hours, days. */
export function ageInUnits(
  iso: string,
  nowMs: number,
): { value: number; unit: 'second' | 'minute' | 'hour' | 'day' } {
  const seconds = Math.max(0, Math.round((nowMs - Date.parse(iso)) / 1000));
  if (seconds < 60) return { value: seconds, unit: 'second' };
  const minutes = Math.floor(seconds / 60);
  if (minutes < 120) return { value: minutes, unit: 'minute' };
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return { value: hours, unit: 'hour' };
  return { value: Math.floor(hours / 24), unit: 'day' };
}

const ageUnitNames = { second: 's', minute: 'min', hour: 'h', day: 'days' } as const;

/** `4 min ago`, `2 h ago`, `3 days ago`: the age a person needs to judge freshness at a glance. */
export function formatAge(iso: string, nowMs: number): string {
  const { value, unit } = ageInUnits(iso, nowMs);
  return `${value} ${ageUnitNames[unit]} ago`;
}

/** A refresh interval in minutes: `10`, or `2.5` when it is not whole. */
export function formatMinutes(seconds: number): string {
  const minutes = seconds / 60;
  return Number.isInteger(minutes) ? String(minutes) : minutes.toFixed(1);
}
