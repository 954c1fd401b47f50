import { STATUS_CODES } from 'node:http';
import type { Snapshot } from '../../domain/rates.ts';
import { type ErrorCode, errorCatalog, errorCodes } from '../error-catalog.ts';
import type { HealthReport } from '../health-assessment.ts';
import {
  type PriceHistorySource,
  periodSeries,
  readCoinHistory,
  sparklinePoints,
} from './charts/coin-history.ts';
import { dayMs, rangeEnding } from './charts/price-series.ts';
import { SnapshotKeyedCache } from './charts/snapshot-keyed-cache.ts';
import { type CoinListLabels, renderCoinFilter, renderCoinTable } from './coin-list-html.ts';
import {
  type CoinListQuery,
  type CoinSortKey,
  coinListSearch,
  defaultCoinListQuery,
  listCoins,
  sortedBy,
} from './coin-list-query.ts';
import { type ContentName, type ContentSources, fillTemplate } from './content.ts';
import { renderEnglishHistory, renderEnglishTrend } from './english-history.ts';
import { formatAge, formatChange, formatTime, formatToman, formatUsdt } from './format.ts';
import { type HtmlBlock, type SlottedMarkdown, splitBlocks } from './html-blocks.ts';
import { escapeHtml, escapeMarkdown } from './markdown.ts';

/**
 * The website's pages as Markdown. Each page is one source file in `content/` plus the values
 * this module computes for it; the plugin renders the result as HTML or sends it as Markdown.
 */

interface SiteSettings {
  publicUrl: string;
  disclaimer: string;
  /** NERKH_SOURCE_LABEL; absent, the served snapshot's own label. */
  sourceLabel?: string;
  refreshSeconds: number;
  rateLimit: number;
  rateWindowSeconds: number;
}

export interface Page {
  status: number;
  title: string;
  /** One plain-text sentence for search engines and link previews. */
  description: string;
  markdown: string;
  /** The HTML form's source, when the page adds HTML that Markdown cannot carry (./html-blocks.ts). */
  html?: SlottedMarkdown;
  /** Nav entry marked current; defaults to the request path. */
  navPath?: string;
  /** False for answers that are not the canonical form of the address (errors, form results). */
  canonical?: boolean;
}

interface PageSources {
  settings: SiteSettings;
  content: ContentSources;
  /** The served snapshot, or null before the first commit. */
  currentSnapshot(): Snapshot | null;
  /** The stored price history the charts are drawn from. */
  history: PriceHistorySource;
  health(): Promise<HealthReport>;
  clock(): number;
}

/** Symbols as the API accepts them (docs/architecture.md#http-contract); anything else cannot name a coin page. */
export const symbolPattern = /^[A-Za-z0-9]{1,20}$/;

export class SitePages {
  readonly #sources: PageSources;
  /** Charts and sparklines, drawn once per served snapshot. */
  readonly #coinHistories = new SnapshotKeyedCache<{ facts: string; charts: string }>();
  readonly #trends = new SnapshotKeyedCache<Map<string, { html: string; markdown: string }>>();

  constructor(sources: PageSources) {
    this.#sources = sources;
  }

  /** Origin every link on the pages starts with. */
  get publicUrl(): string {
    return this.#sources.settings.publicUrl;
  }

  /** Values every source may use. */
  #common(): Record<string, string> {
    const { settings } = this.#sources;
    return {
      base: settings.publicUrl,
      rateLimit: String(settings.rateLimit),
      rateWindow: String(settings.rateWindowSeconds),
      refreshMinutes: formatMinutes(settings.refreshSeconds),
    };
  }

  fill(name: ContentName, values: Record<string, string> = {}): string {
    return fillTemplate(name, this.#sources.content[name], { ...this.#common(), ...values });
  }

  /** Both forms of a page whose values include HTML blocks. */
  #fillForms(name: ContentName, values: Readonly<Record<string, string | HtmlBlock>>) {
    const { markdownValues, htmlValues, blocks } = splitBlocks(values);
    return {
      markdown: this.fill(name, markdownValues),
      html: { markdown: this.fill(name, htmlValues), blocks },
    };
  }

  overview(): Page {
    const snapshot = this.#sources.currentSnapshot();
    const nowMs = this.#sources.clock();
    const currentState =
      snapshot === null
        ? `No rates have been published yet: the service has just started and its first refresh has not completed.`
        : [
            `- Currencies listed: **${snapshot.rates.length}**`,
            `- Last refresh: **${formatTime(snapshot.updated_at)}** (${formatAge(snapshot.updated_at, nowMs)})`,
            `- Tether (USDT) sells at: **${formatToman(snapshot.usdt_irt)}**`,
          ].join('\n');
    return {
      status: 200,
      title: 'Sell rates of digital currencies in tether and toman',
      description: `Current sell rates of ${snapshot?.rates.length ?? 'listed'} digital currencies in tether (USDT) and toman, for programs and AI agents.`,
      markdown: this.fill('index', { currentState }),
    };
  }

  docs(): Page {
    const { settings } = this.#sources;
    const errorTable = [
      '| Status | Code | Title |',
      '|---|---|---|',
      ...errorCodes.map((code) => {
        const entry = errorCatalog[code];
        return `| ${entry.status} | [\`${code}\`](${settings.publicUrl}/docs/errors#${code}) | ${escapeMarkdown(entry.title)} |`;
      }),
    ].join('\n');
    return {
      status: 200,
      title: 'API reference',
      description:
        'How to call the nerkh rates API: authentication, fields, rate limits, caching, errors and examples.',
      markdown: this.fill('docs', {
        // An example response: the label a response would carry now, or the built-in set-up's.
        sourceLabel: jsonStringContent(
          settings.sourceLabel ?? this.#sources.currentSnapshot()?.source ?? 'binance+nobitex',
        ),
        disclaimerJson: JSON.stringify(settings.disclaimer),
        errorTable,
      }),
    };
  }

  errors(): Page {
    const errorSections = errorCodes
      .map((code) => errorSection(code, this.#sources.settings.publicUrl))
      .join('\n\n');
    return {
      status: 200,
      title: 'Errors',
      description: 'Every problem type the nerkh API answers with, under its own anchor.',
      markdown: this.fill('errors', { errorSections }),
    };
  }

  /** The list of coins, filtered and sorted as `query` says. */
  async coins(query: CoinListQuery = defaultCoinListQuery): Promise<Page> {
    const snapshot = this.#sources.currentSnapshot();
    const { publicUrl } = this.#sources.settings;
    let summary: string;
    let coinTable: string | HtmlBlock;
    if (snapshot === null) {
      summary = 'No rates have been published yet: the first refresh has not completed.';
      coinTable = '';
    } else {
      const rows = listCoins(snapshot.rates, query);
      const action = `${publicUrl}/coins`;
      const trends = await this.#trends
        .get(snapshot.id, 'en', async () => {
          const range = rangeEnding(snapshot.updated_at, dayMs, sparklinePoints);
          const histories = await this.#sources.history.priceHistories(range);
          const rendered = new Map<string, { html: string; markdown: string }>();
          for (const row of snapshot.rates) {
            rendered.set(
              row.symbol,
              renderEnglishTrend(periodSeries(1, 'usdt', range, histories.get(row.symbol) ?? [])),
            );
          }
          return rendered;
        })
        // The list's rates are served from memory; a store that does not answer costs only the column.
        .catch(() => new Map<string, { html: string; markdown: string }>());
      const trendOf = (symbol: string) =>
        trends.get(symbol) ?? { html: 'not available', markdown: 'not available' };
      summary = `${snapshot.rates.length} currencies, refreshed at ${formatTime(snapshot.updated_at)}. Tether (USDT) sells at ${formatToman(snapshot.usdt_irt)}.`;
      if (query.q !== '') {
        summary += ` ${rows.length === 0 ? 'None' : `${rows.length} of them`} ${rows.length === 1 ? 'has' : 'have'} a symbol or Persian name containing “${escapeMarkdown(query.q)}”: [show all coins](${action}${coinListSearch({ ...query, q: '' })}).`;
      }
      const coinUrl = (symbol: string) => `${publicUrl}/coins/${encodeURIComponent(symbol)}`;
      const columns: { label: string; sort?: CoinSortKey; markdownLabel?: string }[] = [
        { label: 'Symbol', sort: 'symbol' },
        { label: 'Name', sort: 'name' },
        { label: 'Sell (USDT)', sort: 'usdt' },
        { label: 'Sell (toman)', sort: 'toman' },
        { label: '24 h', sort: 'change' },
        { label: 'Last 24 hours', markdownLabel: 'Last 24 hours, low – high (USDT)' },
        { label: 'As of', sort: 'as_of' },
      ];
      // The Markdown form's headings link to the same sorted lists as the HTML form's.
      const markdownHeadings = columns.map((column) =>
        column.sort === undefined
          ? (column.markdownLabel ?? column.label)
          : `[${escapeMarkdown(column.label)}](${action}${coinListSearch(sortedBy(query, column.sort))})`,
      );
      const markdownTable = [
        `| ${markdownHeadings.join(' | ')} |`,
        '|---|---|---|---|---|---|---|',
        ...rows.map(
          (row) =>
            `| [${escapeMarkdown(row.symbol)}](${coinUrl(row.symbol)}) | ${escapeMarkdown(row.name_fa)} | ${formatUsdt(row.sell_usdt)} | ${formatToman(row.sell_irt)} | ${formatChange(row.change_24h)} | ${trendOf(row.symbol).markdown} | ${formatTime(row.as_of)} |`,
        ),
      ].join('\n');
      const html =
        renderCoinFilter({ action, query, labels: coinListLabels }) +
        (rows.length === 0
          ? ''
          : renderCoinTable({
              action,
              query,
              labels: coinListLabels,
              columns,
              rows: rows.map((row) => ({
                id: row.symbol,
                cells: [
                  `<a href="${escapeHtml(coinUrl(row.symbol))}">${escapeHtml(row.symbol)}</a>`,
                  `<span lang="fa" dir="rtl">${escapeHtml(row.name_fa)}</span>`,
                  escapeHtml(formatUsdt(row.sell_usdt)),
                  escapeHtml(formatToman(row.sell_irt)),
                  escapeHtml(formatChange(row.change_24h)),
                  trendOf(row.symbol).html,
                  escapeHtml(formatTime(row.as_of)),
                ],
              })),
            }));
      coinTable = { markdown: rows.length === 0 ? '' : markdownTable, html };
    }
    return {
      status: 200,
      title: 'Coins',
      description: 'Every listed digital currency with its current sell rate in tether and toman.',
      ...this.#fillForms('coins', { summary, coinTable }),
    };
  }

  /** The coin page, or null when no listed coin has this symbol (matched case-insensitively). */
  async coin(symbol: string): Promise<Page | null> {
    const snapshot = this.#sources.currentSnapshot();
    if (snapshot === null || !symbolPattern.test(symbol)) return null;
    const wanted = symbol.toUpperCase();
    const row = snapshot.rates.find((candidate) => candidate.symbol.toUpperCase() === wanted);
    if (!row) return null;
    const nowMs = this.#sources.clock();
    const rateTable = [
      '| Rate | Value |',
      '|---|---|',
      `| Sell rate in tether | ${formatUsdt(row.sell_usdt)} |`,
      `| Sell rate in toman | ${formatToman(row.sell_irt)} |`,
      `| Change over 24 hours | ${formatChange(row.change_24h)} |`,
      `| As of | ${formatTime(row.as_of)} (${formatAge(row.as_of, nowMs)}) |`,
      `| Tether rate used | ${formatToman(snapshot.usdt_irt)} |`,
    ].join('\n');
    const history = await this.#coinHistories
      .get(snapshot.id, `en:${row.symbol}`, async () =>
        renderEnglishHistory(
          row.symbol,
          await readCoinHistory(this.#sources.history, row.symbol, snapshot.updated_at),
        ),
      )
      .catch(() => historyUnavailable);
    return {
      status: 200,
      title: `${row.symbol} sell rate`,
      description: `Current sell rate of ${row.symbol} (${row.name_fa}) in tether and toman.`,
      navPath: '/coins',
      ...this.#fillForms('coin', {
        symbol: escapeMarkdown(row.symbol),
        nameFa: escapeMarkdown(row.name_fa),
        rateTable,
        updatedAt: formatTime(snapshot.updated_at),
        historyFacts: history.facts,
        historyCharts: { markdown: '', html: history.charts },
      }),
    };
  }

  coinNotFound(symbol: string): Page {
    // The symbol is echoed only when it has the shape of one; anything else is not repeated back.
    const shown = symbolPattern.test(symbol)
      ? `**${escapeMarkdown(symbol.toUpperCase())}**`
      : 'you asked for';
    return {
      status: 404,
      title: 'Coin not found',
      description: 'No listed currency has this symbol.',
      navPath: '/coins',
      canonical: false,
      markdown: this.fill('coin-not-found', { symbol: shown }),
    };
  }

  async status(): Promise<Page> {
    const report = await this.#sources.health();
    const { body } = report;
    const nowMs = this.#sources.clock();
    const verdict = {
      pass: 'All good: the data is fresh and every source is connected.',
      warn: 'Degraded: rates are still served, but a source has a problem or the data is getting old.',
      fail: 'Failing: the rates must not be relied on right now.',
    }[body.status];
    const overallLines = [`**Status: ${body.status}.** ${verdict}`, ''];
    overallLines.push(
      body.updated_at === null
        ? '- Last refresh: none yet'
        : `- Last refresh: ${formatTime(body.updated_at)} (${formatAge(body.updated_at, nowMs)})`,
    );
    if (body.next_refresh_at !== null)
      overallLines.push(`- Next refresh due: ${formatTime(body.next_refresh_at)}`);
    if (body.count !== null) overallLines.push(`- Currencies listed: ${body.count}`);
    const overall = overallLines.join('\n');
    const rows = Object.entries(body.checks).flatMap(([name, entries]) =>
      entries.map(
        (check) =>
          `| ${escapeMarkdown(name)} | ${check.status} | ${check.time === null ? 'never' : formatTime(check.time)} | ${escapeMarkdown(check.output)} |`,
      ),
    );
    const checks = [
      '## Checks',
      '',
      '| Check | Status | Last seen | Details |',
      '|---|---|---|---|',
      ...rows,
    ].join('\n');
    return {
      status: 200,
      title: 'Service status',
      description: 'Freshness of the rates and state of the data sources, for people.',
      markdown: this.fill('status', { overall, checks }),
    };
  }

  /** The contact page's text; `notice` (Markdown) reports a failed submission. */
  contact(notice = ''): Page {
    const failed = notice !== '';
    return {
      status: 200,
      title: failed ? 'Error: Request an API key' : 'Request an API key',
      description: 'Ask for an API key: keys are issued by hand to known organisations.',
      markdown: this.fill('contact', { notice }),
      navPath: '/contact',
      canonical: !failed,
    };
  }

  terms(): Page {
    return {
      status: 200,
      title: 'Terms of use',
      description: 'The rates are informational; what they are and how the API may be used.',
      markdown: this.fill('terms', { disclaimer: escapeMarkdown(this.#sources.settings.disclaimer) }),
    };
  }
}

/**
 * A coin page whose history the store cannot give now (a PostgreSQL outage): the rates are served
 * from memory all the same, and the next request tries the store again.
 */
const historyUnavailable = {
  facts: 'The price history cannot be read right now: the store did not answer. The rates above are current.',
  charts: '',
};

const coinListLabels: CoinListLabels = {
  table: 'Coins',
  filter: 'Filter by symbol or Persian name',
  filterHint: 'For example BTC, eth or بیت‌کوین; part of a name is enough.',
  apply: 'Filter',
  sortAction: (order) => (order === 'asc' ? 'sort ascending' : 'sort descending'),
};

function errorSection(code: ErrorCode, publicUrl: string): string {
  const entry = errorCatalog[code];
  return [
    `## \`${code}\``,
    '',
    `**${entry.status} ${STATUS_CODES[entry.status] ?? ''}**: ${escapeMarkdown(entry.title)}.`,
    '',
    // Catalog descriptions are written as Markdown (backticked header and field names).
    entry.description,
    '',
    `Problem \`type\`: \`${publicUrl}/docs/errors#${code}\``,
  ].join('\n');
}

function formatMinutes(seconds: number): string {
  const minutes = seconds / 60;
  return Number.isInteger(minutes) ? String(minutes) : minutes.toFixed(1);
}

/** A value placed between the quotes of a JSON string in a code block. */
function jsonStringContent(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}
