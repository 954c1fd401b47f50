/**
 * How the website writes numbers and times for people. The API publishes raw values; pages add
 * grouping and units so `4123438813` reads as `4,123,438,813 toman`.
 */

const grouped = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const significant = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 12 });

export function formatToman(toman: number | null): string {
  return toman === null ? 'not available' : `${grouped.format(toman)} toman`;
}

/** Tether amounts keep every significant digit the API publishes (small coins trade at 0.0000x). */
export function formatUsdt(usdt: number): string {
  return `${significant.format(usdt)} USDT`;
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

/** `4 min ago`, `2 h ago`, `3 days ago`: the age a person needs to judge freshness at a glance. */
export function formatAge(iso: string, nowMs: number): string {
  const seconds = Math.max(0, Math.round((nowMs - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds} s ago`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 120) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.floor(hours / 24)} days ago`;
}
