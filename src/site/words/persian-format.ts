import { ageInUnits, durationInUnits } from './english-format.ts';

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
/**
 * Persian pages show times as an Iranian reader thinks of them: in Tehran (IANA zone Asia/Tehran,
 * its offset from tz data through ICU), with the Solar Hijri date of that day in Tehran.
 */
const tehranZone = 'Asia/Tehran';
const tehranNote = 'به وقت تهران';
const dateFields: Intl.DateTimeFormatOptions = {
  timeZone: tehranZone,
  day: 'numeric',
  month: 'long',
  year: 'numeric',
};
const jalaliDate = onFirstUse(() => new Intl.DateTimeFormat('fa-IR-u-ca-persian', dateFields));
/** Hours and minutes in Tehran, on the 24-hour clock. */
const clockFields: Intl.DateTimeFormatOptions = {
  timeZone: tehranZone,
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

/** `۱۱ خرداد ۱۴۰۴، ۱۳:۴۹:۴۲ به وقت تهران`: the Solar Hijri date and the clock, in Tehran. */
export function timeFa(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${jalaliDate().format(date)}، ${clockTime().format(date)} ${tehranNote}`;
}

/** `۴ دقیقه پیش`. */
export function ageFa(iso: string, nowMs: number): string {
  const { value, unit } = ageInUnits(iso, nowMs);
  return relativeTime().format(-value, unit);
}

/** `۱۰ دقیقه`, `۳۰ ثانیه`: a refresh interval in whole minutes, else in seconds (as english-format.ts). */
export function durationFa(seconds: number): string {
  const { value, unit } = durationInUnits(seconds);
  return `${integerFa(value)} ${unit === 'minute' ? 'دقیقه' : 'ثانیه'}`;
}

/** An amount without its unit, every significant digit the API publishes kept (chart axes and facts). */
export function amountFa(value: number): string {
  return usdtFormat().format(value);
}

const jalaliDayMonth = onFirstUse(
  () =>
    new Intl.DateTimeFormat('fa-IR-u-ca-persian', {
      timeZone: tehranZone,
      day: 'numeric',
      month: 'long',
    }),
);
const clockMinutes = onFirstUse(() => new Intl.DateTimeFormat('fa-IR', clockFields));

/** `۱۱ خرداد ۱۴۰۴، ۱۳:۴۹`: a chart point's time in Tehran, shorter than `timeFa` (the chart says the zone once). */
export function shortTimeFa(iso: string): string {
  const date = new Date(iso);
  return `${jalaliDate().format(date)}، ${clockMinutes().format(date)}`;
}

/** A chart's time tick: the hour within two days, the Solar Hijri day and month beyond. */
export function axisTimeFa(iso: string, spanMs: number): string {
  const date = new Date(iso);
  return spanMs <= 2 * 24 * 60 * 60 * 1000 ? clockMinutes().format(date) : jalaliDayMonth().format(date);
}
