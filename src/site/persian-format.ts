import { ageInUnits } from './format.ts';

/**
 * How Persian pages write numbers and times. The formatting is ICU's, through Node's `Intl`
 * (Node ships full ICU): it is the maintained implementation of both the Solar Hijri calendar
 * (`fa-IR-u-ca-persian`) and Persian number formatting (Persian digits, `٬` between thousands,
 * `٫` as the decimal point, CLDR's plural-free relative times), so nothing here is hand-written
 * beyond choosing the pieces. Code samples never go through these: amounts in code stay ASCII.
 */

/**
 * Each format is made when a Persian page first needs it, not when this module loads: making them
 * maps ICU's Persian locale and calendar data into resident memory, which a process answering
 * only `/v1/rates` never needs (docs/decisions/0025-persian-formats-on-first-use.md).
 */
function onFirstUse<T>(make: () => T): () => T {
  let made: T | undefined;
  return () => {
    made ??= make();
    return made;
  };
}

const integerFormat = onFirstUse(() => new Intl.NumberFormat('fa-IR', { maximumFractionDigits: 0 }));
/** Tether amounts keep every significant digit the API publishes, as on English pages. */
const usdtFormat = onFirstUse(() => new Intl.NumberFormat('fa-IR', { maximumSignificantDigits: 12 }));
const changeFormat = onFirstUse(
  () =>
    new Intl.NumberFormat('fa-IR', {
      style: 'percent',
      signDisplay: 'exceptZero',
      minimumFractionDigits: 2,
      maximumFractionDigits: 2,
    }),
);
/** A whole date in UTC, for the Solar Hijri and the Gregorian calendar alike. */
const dateFields: Intl.DateTimeFormatOptions = {
  timeZone: 'UTC',
  day: 'numeric',
  month: 'long',
  year: 'numeric',
};
const jalaliDate = onFirstUse(() => new Intl.DateTimeFormat('fa-IR-u-ca-persian', dateFields));
const gregorianDate = onFirstUse(() => new Intl.DateTimeFormat('fa-IR-u-ca-gregory', dateFields));
/** Hours and minutes in UTC, on the 24-hour clock. */
const clockFields: Intl.DateTimeFormatOptions = {
  timeZone: 'UTC',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
};
const clockTime = onFirstUse(() => new Intl.DateTimeFormat('fa-IR', { ...clockFields, second: '2-digit' }));
const relativeTime = onFirstUse(() => new Intl.RelativeTimeFormat('fa', { numeric: 'always' }));

export const notAvailableFa = 'در دسترس نیست';

export function integerFa(value: number): string {
  return integerFormat().format(value);
}

/** `۴٬۱۲۳٬۴۳۸٬۸۱۳ تومان`: whole toman, grouped by thousands. */
export function tomanFa(toman: number | null): string {
  return toman === null ? notAvailableFa : `${integerFormat().format(Math.round(toman))} تومان`;
}

export function usdtFa(usdt: number): string {
  return `${usdtFormat().format(usdt)} تتر`;
}

export function changeFa(percent: number | null): string {
  return percent === null ? notAvailableFa : changeFormat().format(percent / 100);
}

/** `۱۱ خرداد ۱۴۰۴ (۱ ژوئن ۲۰۲۵)، ۱۰:۱۹:۴۲ UTC`: the Solar Hijri date beside the Gregorian one, in UTC. */
export function timeFa(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${jalaliDate().format(date)} (${gregorianDate().format(date)})، ${clockTime().format(date)} UTC`;
}

/** `۴ دقیقه پیش`. */
export function ageFa(iso: string, nowMs: number): string {
  const { value, unit } = ageInUnits(iso, nowMs);
  return relativeTime().format(-value, unit);
}

export function minutesFa(seconds: number): string {
  return new Intl.NumberFormat('fa-IR', { maximumFractionDigits: 1 }).format(seconds / 60);
}

/** An amount without its unit, every significant digit the API publishes kept (chart axes and facts). */
export function amountFa(value: number): string {
  return usdtFormat().format(value);
}

const jalaliDayMonth = onFirstUse(
  () =>
    new Intl.DateTimeFormat('fa-IR-u-ca-persian', {
      timeZone: 'UTC',
      day: 'numeric',
      month: 'long',
    }),
);
const clockMinutes = onFirstUse(() => new Intl.DateTimeFormat('fa-IR', clockFields));

/** `۱۱ خرداد ۱۴۰۴، ۱۰:۱۹ UTC`: a chart point's time, shorter than `timeFa`. */
export function shortTimeFa(iso: string): string {
  const date = new Date(iso);
  return `${jalaliDate().format(date)}، ${clockMinutes().format(date)} UTC`;
}

/** A chart's time tick: the hour within two days, the Solar Hijri day and month beyond. */
export function axisTimeFa(iso: string, spanMs: number): string {
  const date = new Date(iso);
  return spanMs <= 2 * 24 * 60 * 60 * 1000 ? clockMinutes().format(date) : jalaliDayMonth().format(date);
}
