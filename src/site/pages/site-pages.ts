import type { Catalog } from '../../domain/catalog.ts';
import type { Snapshot } from '../../domain/rates.ts';
import { type ErrorCode, errorCatalog, errorCodes } from '../../web/error-catalog.ts';
import type { HealthReport } from '../../web/health-report.ts';
import {
  type PriceHistorySource,
  periodSeries,
  readCoinHistory,
  sparklinePoints,
} from '../charts/coin-history.ts';
import { renderHistory, renderTrend } from '../charts/history-text.ts';
import { dayMs, rangeEnding } from '../charts/price-series.ts';
import { SnapshotKeyedCache } from '../charts/snapshot-keyed-cache.ts';
import { type CoinColumn, renderCoinFilter, renderCoinTable } from '../coin-list/coin-list-html.ts';
import {
  type CoinListQuery,
  coinListSearch,
  defaultCoinListQuery,
  listCoins,
  sortedBy,
} from '../coin-list/coin-list-query.ts';
import { type Language, languages, pathIn } from '../language.ts';
import type { SiteWords } from '../words/site-words.ts';
import { wordsOf } from '../words/words-of.ts';
import {
  type ContentName,
  type ContentSources,
  fillTemplate,
  loadContentSources,
} from './content-sources.ts';
import { type HtmlBlock, type SlottedMarkdown, splitBlocks } from './html-blocks.ts';
import { escapeHtml, escapeMarkdown } from './markdown.ts';

/**
 * The website's pages as Markdown, in one language. Each page is one source file in `content/`
 * (or `content/fa/`) plus the values this module computes for it, written with that language's
 * words; the plugin renders the result as HTML or sends it as Markdown.
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
  /** The page sources of this language. */
  content: ContentSources;
  words: SiteWords;
  /** The served snapshot, or null before the first commit. */
  currentSnapshot(): Snapshot | null;
  /** The stored price history the charts are drawn from. */
  history: PriceHistorySource;
  /**
   * English names by symbol, from the catalog: the API's rate record carries only the Persian
   * name (docs/architecture.md#data), so the site reads the English one here.
   */
  englishNames: ReadonlyMap<string, string>;
  health(): Promise<HealthReport>;
  clock(): number;
}

/** The site's pages in every language, from the same snapshot, settings and health judgement. */
export type PagesByLanguage = Readonly<Record<Language, SitePages>>;

export function sitePagesByLanguage(
  sources: Omit<PageSources, 'content' | 'words' | 'englishNames'> & { catalog: Catalog },
): PagesByLanguage {
  const { catalog, ...shared } = sources;
  const englishNames = new Map(catalog.map((entry) => [entry.symbol, entry.name_en]));
  const entries = languages.map(
    (language) =>
      [
        language,
        new SitePages({
          ...shared,
          englishNames,
          content: loadContentSources(language),
          words: wordsOf(language),
        }),
      ] as const,
  );
  return Object.fromEntries(entries) as Record<Language, SitePages>;
}

/** Symbols as the API accepts them (content/docs.md "GET /v1/rates"); anything else cannot name a coin page. */
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

  get words(): SiteWords {
    return this.#sources.words;
  }

  get language(): Language {
    return this.#sources.words.language;
  }

  /** The names the coins list is filtered and sorted by, on this language's pages. */
  #coinNames() {
    const { englishNames } = this.#sources;
    return { english: (symbol: string) => englishNames.get(symbol), language: this.language };
  }

  /**
   * A coin's name as this language's pages show it: the English name with the Persian one beside
   * it in English (the Persian one alone without an English name), the Persian one in Persian.
   */
  #shownName(row: { symbol: string; name_fa: string }): { english: string | undefined; persian: string } {
    const english = this.language === 'en' ? this.#sources.englishNames.get(row.symbol) : undefined;
    return { english, persian: row.name_fa };
  }

  /** Absolute URL of a site page (given by its English path) in this language. */
  pageUrl(path: string): string {
    return `${this.publicUrl}${pathIn(this.language, path)}`;
  }

  /**
   * Values every source may use: `base` is the origin (API and discovery URLs), `home` the root of
   * this language's pages; numbers come in people's digits and, with `Code`, in ASCII for code samples.
   */
  #common(): Record<string, string> {
    const { settings, words } = this.#sources;
    return {
      base: settings.publicUrl,
      home: this.pageUrl('/').replace(/\/$/, ''),
      rateLimit: words.integer(settings.rateLimit),
      rateWindow: words.integer(settings.rateWindowSeconds),
      refreshInterval: words.duration(settings.refreshSeconds),
      rateLimitCode: String(settings.rateLimit),
      rateWindowCode: String(settings.rateWindowSeconds),
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
    const { words } = this;
    const nowMs = this.#sources.clock();
    const currentState =
      snapshot === null
        ? words.overview.noRates
        : [
            `- ${words.overview.currencies(words.integer(snapshot.rates.length))}`,
            `- ${words.overview.lastRefresh(words.time(snapshot.updated_at), words.age(snapshot.updated_at, nowMs))}`,
            `- ${words.overview.tetherSells(words.toman(snapshot.usdt_irt))}`,
          ].join('\n');
    return {
      status: 200,
      title: words.overview.title,
      description: words.overview.description(snapshot?.rates.length ?? null),
      markdown: this.fill('index', { currentState }),
    };
  }

  docs(): Page {
    const { settings } = this.#sources;
    const { words } = this;
    const errorTable = [
      words.docs.errorTableHeader,
      '|---|---|---|',
      ...errorCodes.map((code) => {
        const entry = errorCatalog[code];
        return `| ${words.integer(entry.status)} | [\`${code}\`](${this.pageUrl('/docs/errors')}#${code}) | ${escapeMarkdown(words.errors.entry(code).title)} |`;
      }),
    ].join('\n');
    return {
      status: 200,
      title: words.docs.title,
      description: words.docs.description,
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
    const { words } = this;
    const errorSections = errorCodes
      .map((code) => errorSection(code, words, this.#sources.settings.publicUrl))
      .join('\n\n');
    return {
      status: 200,
      title: words.errors.title,
      description: words.errors.description,
      markdown: this.fill('errors', { errorSections }),
    };
  }

  /** The list of coins, filtered and sorted as `query` says. */
  async coins(query: CoinListQuery = defaultCoinListQuery): Promise<Page> {
    const snapshot = this.#sources.currentSnapshot();
    const { words } = this;
    let summary: string;
    let coinTable: string | HtmlBlock;
    if (snapshot === null) {
      summary = words.coins.noRates;
      coinTable = '';
    } else {
      const labels = words.coins;
      const rows = listCoins(snapshot.rates, query, this.#coinNames());
      const action = this.pageUrl('/coins');
      const trends = await this.#trends
        .get(snapshot.id, 'trends', async () => {
          const range = rangeEnding(snapshot.updated_at, dayMs, sparklinePoints);
          const histories = await this.#sources.history.priceHistories(range);
          const rendered = new Map<string, { html: string; markdown: string }>();
          for (const row of snapshot.rates) {
            rendered.set(
              row.symbol,
              renderTrend(periodSeries(1, 'usdt', range, histories.get(row.symbol) ?? []), words.history),
            );
          }
          return rendered;
        })
        // The list's rates are served from memory; a store that does not answer costs only the column.
        .catch(() => new Map<string, { html: string; markdown: string }>());
      const notAvailable = words.history.notAvailable;
      const trendOf = (symbol: string) =>
        trends.get(symbol) ?? { html: notAvailable, markdown: notAvailable };
      summary = labels.summary(
        words.integer(snapshot.rates.length),
        words.time(snapshot.updated_at),
        words.toman(snapshot.usdt_irt),
      );
      if (query.q !== '') {
        summary += ` ${labels.filterSummary(rows.length, escapeMarkdown(query.q), `${action}${coinListSearch({ ...query, q: '' })}`)}`;
      }
      const coinUrl = (symbol: string) => this.pageUrl(`/coins/${encodeURIComponent(symbol)}`);
      const columns: (CoinColumn & { markdownLabel?: string })[] = [
        { key: 'symbol', label: labels.columns.symbol, sort: 'symbol' },
        { key: 'name', label: labels.columns.name, sort: 'name' },
        { key: 'usdt', label: labels.columns.usdt, sort: 'usdt' },
        { key: 'toman', label: labels.columns.toman, sort: 'toman' },
        { key: 'change', label: labels.columns.change, sort: 'change' },
        { key: 'trend', label: labels.columns.trend, markdownLabel: labels.trendMarkdown },
        { key: 'asOf', label: labels.columns.asOf, sort: 'as_of' },
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
            `| [${escapeMarkdown(row.symbol)}](${coinUrl(row.symbol)}) | ${this.#nameMarkdown(row)} | ${words.usdt(row.sell_usdt)} | ${words.toman(row.sell_irt)} | ${words.change(row.change_24h)} | ${trendOf(row.symbol).markdown} | ${words.rateTime(row.as_of)} |`,
        ),
      ].join('\n');
      const html =
        renderCoinFilter({ action, query, labels: labels.list }) +
        (rows.length === 0
          ? ''
          : renderCoinTable({
              action,
              query,
              labels: labels.list,
              columns,
              rows: rows.map((row) => ({
                id: row.symbol,
                cells: [
                  `<a href="${escapeHtml(coinUrl(row.symbol))}">${escapeHtml(row.symbol)}</a>`,
                  this.#nameHtml(row),
                  escapeHtml(words.usdt(row.sell_usdt)),
                  escapeHtml(words.toman(row.sell_irt)),
                  escapeHtml(words.change(row.change_24h)),
                  trendOf(row.symbol).html,
                  escapeHtml(unbrokenParts(words.rateTime(row.as_of))),
                ],
              })),
            }));
      coinTable = { markdown: rows.length === 0 ? '' : markdownTable, html };
    }
    return {
      status: 200,
      title: words.coins.title,
      description: words.coins.description,
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
    const { words } = this;
    const labels = words.coin;
    const nowMs = this.#sources.clock();
    const rateTable = [
      labels.tableHeader,
      '|---|---|',
      `| ${labels.sellUsdt} | ${words.usdt(row.sell_usdt)} |`,
      `| ${labels.sellToman} | ${words.toman(row.sell_irt)} |`,
      `| ${labels.change} | ${words.change(row.change_24h)} |`,
      `| ${labels.asOf} | ${words.rateTime(row.as_of)} (${words.age(row.as_of, nowMs)}) |`,
      `| ${labels.tetherRate} | ${words.toman(snapshot.usdt_irt)} |`,
    ].join('\n');
    const history = await this.#coinHistories
      .get(snapshot.id, row.symbol, async () =>
        renderHistory(
          row.symbol,
          await readCoinHistory(this.#sources.history, row.symbol, snapshot.updated_at),
          words.history,
        ),
      )
      // A store that does not answer (a PostgreSQL outage) costs the page its charts, never the
      // page: the rates are served from memory, and the next request tries the store again.
      .catch(() => ({ facts: words.history.unavailable, charts: '' }));
    return {
      status: 200,
      title: labels.title(row.symbol),
      description: labels.description(row.symbol, this.#nameText(row)),
      navPath: '/coins',
      ...this.#fillForms('coin', {
        symbol: escapeMarkdown(row.symbol),
        name: this.#nameMarkdown(row),
        rateTable,
        // Source names as the operator wrote them in the sources file (docs/sources.md "What is
        // published"); the codebase has no display names for them.
        priceSource: labels.priceFrom(
          `**${escapeMarkdown(row.source)}**`,
          words.age(row.as_of, nowMs),
          row.tether_source === null ? null : `**${escapeMarkdown(row.tether_source)}**`,
        ),
        updatedAt: words.time(snapshot.updated_at),
        historyFacts: history.facts,
        historyCharts: { markdown: '', html: history.charts },
      }),
    };
  }

  /** `Bitcoin (بیت‌کوین)` in English, `بیت‌کوین` in Persian: for the description. */
  #nameText(row: { symbol: string; name_fa: string }): string {
    const { english, persian } = this.#shownName(row);
    return english === undefined ? persian : `${english} (${persian})`;
  }

  #nameMarkdown(row: { symbol: string; name_fa: string }): string {
    return escapeMarkdown(this.#nameText(row));
  }

  /**
   * The list's name cell: the name a reader of this language knows, one per row to keep the full
   * list light (the coin page shows both); a Persian name on an English page is marked
   * right-to-left, on a Persian page it is in the page's own language already.
   */
  #nameHtml(row: { symbol: string; name_fa: string }): string {
    const { english, persian } = this.#shownName(row);
    if (english !== undefined) return escapeHtml(english);
    return this.language === 'fa'
      ? escapeHtml(persian)
      : `<span lang="fa" dir="rtl">${escapeHtml(persian)}</span>`;
  }

  coinNotFound(symbol: string): Page {
    const { words } = this;
    // The symbol is echoed only when it has the shape of one; anything else is not repeated back.
    const shown = symbolPattern.test(symbol)
      ? `**${escapeMarkdown(symbol.toUpperCase())}**`
      : words.coinNotFound.youAskedFor;
    return {
      status: 404,
      title: words.coinNotFound.title,
      description: words.coinNotFound.description,
      navPath: '/coins',
      canonical: false,
      markdown: this.fill('coin-not-found', { symbol: shown }),
    };
  }

  async status(): Promise<Page> {
    const report = await this.#sources.health();
    const { body } = report;
    const { words } = this;
    const labels = words.status;
    const nowMs = this.#sources.clock();
    const overallLines = [labels.headline(labels.statusName[body.status], labels.verdict[body.status]), ''];
    overallLines.push(
      body.updated_at === null
        ? `- ${labels.lastRefreshNone}`
        : `- ${labels.lastRefresh(words.time(body.updated_at), words.age(body.updated_at, nowMs))}`,
    );
    if (body.next_refresh_at !== null)
      overallLines.push(`- ${labels.nextRefresh(words.time(body.next_refresh_at))}`);
    if (body.count !== null) overallLines.push(`- ${labels.currencies(words.integer(body.count))}`);
    const overall = overallLines.join('\n');
    const rows = Object.entries(body.checks).flatMap(([name, entries]) =>
      entries.map(
        (check) =>
          `| ${escapeMarkdown(name)} | ${labels.statusName[check.status]} | ${check.time === null ? labels.never : words.time(check.time)} | ${escapeMarkdown(check.output)} |`,
      ),
    );
    const checks = [`## ${labels.checksHeading}`, '', labels.tableHeader, '|---|---|---|---|', ...rows].join(
      '\n',
    );
    return {
      status: 200,
      title: labels.title,
      description: labels.description,
      markdown: this.fill('status', { overall, checks }),
    };
  }

  /** The contact page's text; `notice` (Markdown) reports a failed submission. */
  contact(notice = ''): Page {
    const failed = notice !== '';
    const labels = this.words.contact;
    return {
      status: 200,
      title: failed ? labels.errorTitle : labels.title,
      description: labels.description,
      markdown: this.fill('contact', { notice }),
      navPath: '/contact',
      canonical: !failed,
    };
  }

  clients(): Page {
    return {
      status: 200,
      title: this.words.clients.title,
      description: this.words.clients.description,
      markdown: this.fill('clients'),
    };
  }

  contactReceived(): Page {
    const labels = this.words.contact;
    return {
      status: 200,
      title: labels.receivedTitle,
      description: labels.receivedDescription,
      markdown: this.fill('contact-received'),
      navPath: '/contact',
      canonical: false,
    };
  }

  terms(): Page {
    return {
      status: 200,
      title: this.words.terms.title,
      description: this.words.terms.description,
      markdown: this.fill('terms', { disclaimer: escapeMarkdown(this.#sources.settings.disclaimer) }),
    };
  }
}

function errorSection(code: ErrorCode, words: SiteWords, publicUrl: string): string {
  const entry = errorCatalog[code];
  const local = words.errors.entry(code);
  return [
    `## \`${code}\``,
    '',
    words.errors.statusLine(words.integer(entry.status), escapeMarkdown(local.title), entry.title),
    '',
    // Catalog descriptions are written as Markdown (backticked header and field names).
    local.description,
    '',
    `${words.errors.problemType}: \`${publicUrl}/docs/errors#${code}\``,
  ].join('\n');
}

/** A value placed between the quotes of a JSON string in a code block. */
function jsonStringContent(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

/**
 * A time for a narrow table cell: no-break spaces inside its parts, so it wraps only between the
 * UTC and the Tehran time (`… UTC` / `(… Tehran)`) or after the Persian date's comma, never inside a date.
 */
function unbrokenParts(time: string): string {
  return time.replace(/(?<!،) (?!\()/g, '\u00A0');
}
