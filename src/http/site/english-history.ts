import type { CoinHistory, PeriodSeries } from './charts/coin-history.ts';
import { renderPriceChart } from './charts/price-chart.ts';
import type { SeriesSummary } from './charts/series-summary.ts';
import { renderSparkline } from './charts/sparkline.ts';
import { currencyUnit, englishChartText, periodName } from './english-chart-text.ts';
import { formatAmount, formatChange } from './format.ts';

/** A coin's price history on its English page: the facts as a Markdown table, the charts as HTML. */
export interface RenderedHistory {
  facts: string;
  charts: string;
}

function amount(value: number, period: PeriodSeries): string {
  return `${formatAmount(value)} ${currencyUnit[period.currency]}`;
}

function factsRow(period: PeriodSeries): string {
  const name = `${periodName(period.days)}, in ${currencyUnit[period.currency]}`;
  const { summary } = period;
  if (summary === null) return `| ${name} | not available | not available | not available | not available |`;
  const change = summary.changePercent === null ? 'not available' : formatChange(summary.changePercent);
  return `| ${name} | ${amount(summary.low.value, period)} | ${amount(summary.high.value, period)} | ${amount(summary.last.value, period)} | ${change} |`;
}

export function renderEnglishHistory(symbol: string, history: CoinHistory): RenderedHistory {
  const facts = [
    '| Period | Low | High | Last | Change |',
    '|---|---|---|---|---|',
    ...history.periods.map(factsRow),
  ].join('\n');
  const charts = history.periods
    .map((period) =>
      renderPriceChart({
        id: `chart-${period.days}d-${period.currency}`,
        points: period.points,
        range: period.range,
        text: englishChartText(symbol, period.currency, period.days),
      }),
    )
    .join('');
  return { facts, charts };
}

/** The list's 24-hour column: a sparkline named by its facts, and the same facts as Markdown. */
export interface RenderedTrend {
  html: string;
  markdown: string;
}

export function renderEnglishTrend(period: PeriodSeries): RenderedTrend {
  const summary: SeriesSummary | null = period.summary;
  if (summary === null) return { html: 'not available', markdown: 'not available' };
  const low = amount(summary.low.value, period);
  const high = amount(summary.high.value, period);
  const change = summary.changePercent === null ? '' : `, ${formatChange(summary.changePercent)}`;
  return {
    html: renderSparkline({
      points: period.points,
      range: period.range,
      label: `Last 24 hours: low ${low}, high ${high}${change}`,
    }),
    markdown: `${low} – ${high}${change}`,
  };
}
