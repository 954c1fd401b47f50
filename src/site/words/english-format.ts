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

/**
 * `value` rounded to `digits` significant digits, in plain decimal notation (never `1e-7`), grouped.
 * Intl rounds the number's shortest decimal form (the one JSON carries: `240375.8751205`), half away
 * from zero, not the double's exact binary value (`240375.87512049998…`), so this does the same on
 * the digits of `String(value)`. No library formats without loading ICU (see above).
 */
function plainDecimal(value: number, digits: number): string {
  const sign = value < 0 ? '-' : '';
  const rounded = roundSignificant(expandExponent(String(Math.abs(value))), digits);
  if (/^[0.]*$/.test(rounded)) return '0';
  const [integerPart = '0', fraction = ''] = rounded.split('.');
  const trimmed = fraction.replace(/0+$/, '');
  return `${sign}${groupThousands(integerPart)}${trimmed === '' ? '' : `.${trimmed}`}`;
}

/** A plain non-negative decimal (`1234.5678`) rounded half away from zero to `digits` significant digits. */
function roundSignificant(decimal: string, digits: number): string {
  const [integerPart = '', fraction = ''] = decimal.split('.');
  const all = integerPart + fraction;
  const first = all.search(/[1-9]/);
  if (first === -1 || all.length - first <= digits) return decimal;
  let kept = all.slice(0, first + digits);
  let point = integerPart.length;
  if ((all[first + digits] ?? '0') >= '5') {
    const carried = (BigInt(kept) + 1n).toString().padStart(kept.length, '0');
    if (carried.length > kept.length) point += 1;
    kept = carried;
  }
  if (kept.length <= point) return kept + '0'.repeat(point - kept.length);
  return `${kept.slice(0, point) || '0'}.${kept.slice(point)}`;
}

/** `1.234e-7` → `0.0000001234`, `1.2e+21` → `1200000000000000000000`; plain text is returned as is. */
function expandExponent(text: string): string {
  const match = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (match === null) return text;
  const [, sign = '', lead = '', rest = '', exponentText = '0'] = match;
  const digitsText = lead + rest;
  const point = 1 + Number(exponentText);
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digitsText}`;
  if (point >= digitsText.length) return `${sign}${digitsText}${'0'.repeat(point - digitsText.length)}`;
  return `${sign}${digitsText.slice(0, point)}.${digitsText.slice(point)}`;
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

/**
 * The wall clock in Tehran (IANA zone Asia/Tehran), from ICU through Intl: the zone's offset and
 * its history are tz data, not something to hand-write. Made on first use, as the Persian formats
 * are (docs/decisions/0025-persian-formats-on-first-use.md).
 */
let tehranParts: Intl.DateTimeFormat | undefined;
function tehranClock(date: Date): { day: string; time: string } {
  tehranParts ??= new Intl.DateTimeFormat('en-US', {
    timeZone: 'Asia/Tehran',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  });
  const part = Object.fromEntries(tehranParts.formatToParts(date).map((piece) => [piece.type, piece.value]));
  return {
    day: `${part.year}-${part.month}-${part.day}`,
    time: `${part.hour}:${part.minute}:${part.second}`,
  };
}

/**
 * A rate's time for English readers: UTC, with Tehran's time beside it (the exchange's users read
 * Tehran time), and Tehran's date too when it is another day than in UTC:
 * `2025-06-01 10:19:42 UTC (13:49:42 Tehran)`, `2025-06-01 21:00:00 UTC (2025-06-02 00:30:00 Tehran)`.
 */
export function formatRateTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const utc = formatTime(iso);
  const tehran = tehranClock(date);
  const sameDay = tehran.day === utc.slice(0, 10);
  return `${utc} (${sameDay ? '' : `${tehran.day} `}${tehran.time} Tehran)`;
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

/**
 * A refresh interval as people say it: in whole minutes when it is whole minutes, else in seconds
 * (`10 minutes`, `1 minute`, `30 seconds`, `90 seconds`), never a fraction of a minute.
 */
export function durationInUnits(seconds: number): { value: number; unit: 'second' | 'minute' } {
  const whole = Math.max(0, Math.round(seconds));
  return whole >= 60 && whole % 60 === 0
    ? { value: whole / 60, unit: 'minute' }
    : { value: whole, unit: 'second' };
}

export function formatDuration(seconds: number): string {
  const { value, unit } = durationInUnits(seconds);
  return `${value} ${unit}${value === 1 ? '' : 's'}`;
}
