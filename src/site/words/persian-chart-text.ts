import type { ChartFormat, ChartText } from '../charts/chart-text.ts';
import type { HistoryWords } from '../charts/history-text.ts';
import type { PriceCurrency } from '../charts/price-series.ts';
import { amountFa, axisTimeFa, changeFa, integerFa, notAvailableFa, shortTimeFa } from './persian-format.ts';

/** The Persian words and formats of the price charts and the coins list's 24-hour column. */

const currencyUnit: Record<PriceCurrency, string> = { usdt: 'تتر', irt: 'تومان' };
const currencyName: Record<PriceCurrency, string> = { usdt: 'تتر (USDT)', irt: 'تومان' };

/**
 * A right-to-left isolate (U+2067 … U+2069, UAX #9). The chart's SVG is left to right (time runs
 * left to right), and inside it Chromium lays `۵ خرداد` or `زمان (به وقت تهران)` out in left-to-right
 * order, which a Persian reader reads backwards; isolated, each text reads right to left.
 */
function rightToLeft(text: string): string {
  return `\u2067${text}\u2069`;
}

const persianChartFormat: ChartFormat = {
  formatNumber: amountFa,
  formatTime: shortTimeFa,
  formatAxisTime: (iso, spanMs) => rightToLeft(axisTimeFa(iso, spanMs)),
  formatChange: changeFa,
};

/** «۲۴ ساعت گذشته» / «۷ روز گذشته». */
function periodName(days: number): string {
  return days === 1 ? '۲۴ ساعت گذشته' : `${integerFa(days)} روز گذشته`;
}

function persianChartText(symbol: string, currency: PriceCurrency, days: number): ChartText {
  const unit = currencyUnit[currency];
  const period = periodName(days);
  return {
    format: persianChartFormat,
    labels: {
      title: `${symbol} به ${currencyName[currency]}، ${period}`,
      valueAxis: rightToLeft(`قیمت فروش (${unit})`),
      timeAxis: rightToLeft('زمان (به وقت تهران)'),
      low: 'کمینه',
      high: 'بیشینه',
      last: 'آخرین',
      dataTable: `جدول داده: ${symbol} به ${unit}، ${period}`,
      markColumn: 'نشان',
      noData: `هنوز هیچ قیمتی از ${symbol} به ${unit} برای ${period} ذخیره نشده است.`,
      summary: (facts) =>
        `کمینه ${facts.low} ${unit} در ${facts.lowAt}؛ بیشینه ${facts.high} ${unit} در ${facts.highAt}؛ آخرین ${facts.last} ${unit} در ${facts.lastAt}${facts.change === null ? '' : ` (${facts.change} در این دوره)`}.`,
    },
  };
}

export const persianHistoryWords: HistoryWords = {
  chartText: persianChartText,
  unit: currencyUnit,
  periodRow: (days, currency) => `${periodName(days)}، به ${currencyUnit[currency]}`,
  factsHeader: '| دوره | کمینه | بیشینه | آخرین | تغییر |',
  notAvailable: notAvailableFa,
  unavailable: 'تاریخچهٔ قیمت اکنون خوانده نمی‌شود: انبارهٔ داده پاسخ نداد. نرخ‌های بالا به‌روزند.',
  amount: amountFa,
  change: changeFa,
  trendLabel: (low, high, change) =>
    `۲۴ ساعت گذشته: کمینه ${low}، بیشینه ${high}${change === null ? '' : `، ${change}`}`,
};
