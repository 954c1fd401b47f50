import type { ChartFormat, ChartText } from '../charts/chart-text.ts';
import type { HistoryWords } from '../charts/history-text.ts';
import type { PriceCurrency } from '../charts/price-series.ts';
import { formatAmount, formatChange, formatTime } from './english-format.ts';

/**
 * The English words and formats of the price charts: the renderers in ./charts hold none, so a
 * page in another language passes its own.
 */

const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Unit after an amount, as the rest of the site writes it. */
export const currencyUnit: Record<PriceCurrency, string> = { usdt: 'USDT', irt: 'toman' };
const currencyName: Record<PriceCurrency, string> = { usdt: 'tether (USDT)', irt: 'toman' };

export const englishChartFormat: ChartFormat = {
  formatNumber: formatAmount,
  formatTime,
  // Within two days the hour tells ticks apart, beyond that the date (all UTC, as every time on the site).
  formatAxisTime(iso, spanMs) {
    const date = new Date(iso);
    if (spanMs <= 2 * 24 * 60 * 60 * 1000) return iso.slice(11, 16);
    return `${months[date.getUTCMonth()]} ${date.getUTCDate()}`;
  },
  formatChange,
};

/** "last 24 hours" / "last 7 days". */
export function periodName(days: number): string {
  return days === 1 ? 'last 24 hours' : `last ${days} days`;
}

export function englishChartText(symbol: string, currency: PriceCurrency, days: number): ChartText {
  const unit = currencyUnit[currency];
  return {
    format: englishChartFormat,
    labels: {
      title: `${symbol} in ${currencyName[currency]}, ${periodName(days)}`,
      valueAxis: `Sell price (${unit})`,
      timeAxis: 'Time (UTC)',
      low: 'Low',
      high: 'High',
      last: 'Last',
      dataTable: `Data table: ${symbol} in ${unit}, ${periodName(days)}`,
      markColumn: 'Mark',
      noData: `No ${unit} price of ${symbol} has been stored for the ${periodName(days)} yet.`,
      summary: (facts) =>
        `Low ${facts.low} ${unit} at ${facts.lowAt}; high ${facts.high} ${unit} at ${facts.highAt}; last ${facts.last} ${unit} at ${facts.lastAt}${facts.change === null ? '' : ` (${facts.change} over the period)`}.`,
    },
  };
}

/** The English words of a coin's history (../charts/history-text.ts). */
export const englishHistoryWords: HistoryWords = {
  chartText: englishChartText,
  unit: currencyUnit,
  periodRow: (days, currency) => `${periodName(days)}, in ${currencyUnit[currency]}`,
  factsHeader: '| Period | Low | High | Last | Change |',
  notAvailable: 'not available',
  unavailable:
    'The price history cannot be read right now: the store did not answer. The rates above are current.',
  amount: formatAmount,
  change: formatChange,
  trendLabel: (low, high, change) =>
    `Last 24 hours: low ${low}, high ${high}${change === null ? '' : `, ${change}`}`,
};
