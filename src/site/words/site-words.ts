import type { ErrorCode } from '../../web/error-catalog.ts';
import type { HistoryWords } from '../charts/history-text.ts';
import type { CoinListLabels } from '../coin-list/coin-list-html.ts';
import type { Language } from '../language.ts';

/**
 * Everything the website says outside its Markdown sources, in one language: how it writes
 * numbers and times, the layout's labels, the sentences pages build from live data, and the key
 * request form. One object per language (./english.ts, ./persian.ts) fills this shape, so a label
 * missing in one language is a type error.
 */
export interface SiteWords {
  language: Language;
  dir: 'ltr' | 'rtl';
  /** The language's name in itself, for the language switch. */
  ownName: string;

  /** A whole number as people read it (`60`, `۶۰`). */
  integer(value: number): string;
  toman(toman: number | null): string;
  usdt(usdt: number): string;
  change(percent: number | null): string;
  /** A moment, unambiguous for a reader of this language (UTC in English, Tehran time in Persian). */
  time(iso: string): string;
  /** A rate's own time (`as_of`): as `time`, and in English with Tehran's time beside UTC. */
  rateTime(iso: string): string;
  age(iso: string, nowMs: number): string;
  /** A refresh interval as people say it (`10 minutes`, `30 seconds`). */
  duration(seconds: number): string;

  layout: {
    skipLink: string;
    siteNavLabel: string;
    /** Labels of the header's pages, by English path. */
    nav: Record<
      '/' | '/docs' | '/docs/errors' | '/coins' | '/clients' | '/status' | '/contact' | '/terms',
      string
    >;
    machineHeading: string;
    machineLinks: Record<
      | '/v1/openapi.json'
      | '/.well-known/api-catalog'
      | '/llms.txt'
      | '/llms-full.txt'
      | '/SKILL.md'
      | '/v1/health',
      string
    >;
    /** Footer sentence, trusted HTML around the link to the terms page. */
    footerHtml(termsHref: string): string;
    languageSwitchLabel: string;
    titleSuffix: string;
  };

  overview: {
    title: string;
    description(count: number | null): string;
    noRates: string;
    currencies(count: string): string;
    lastRefresh(time: string, age: string): string;
    tetherSells(toman: string): string;
  };
  docs: { title: string; description: string; errorTableHeader: string };
  errors: {
    title: string;
    description: string;
    /** The error's title and description in this language (the API's own are English). */
    entry(code: ErrorCode): { title: string; description: string };
    /** Line under an error's heading: status and, on Persian pages, the API's own title. */
    statusLine(status: string, title: string, apiTitle: string): string;
    problemType: string;
  };
  coins: {
    title: string;
    description: string;
    noRates: string;
    summary(count: string, time: string, tether: string): string;
    /** After the summary when the list is filtered; `showAll` is the unfiltered list's address. */
    filterSummary(count: number, query: string, showAll: string): string;
    columns: Record<'symbol' | 'name' | 'usdt' | 'toman' | 'change' | 'trend' | 'asOf', string>;
    /** The 24-hour column's heading in the Markdown form, which shows the facts instead of a line. */
    trendMarkdown: string;
    list: CoinListLabels;
  };
  /** Price history: facts, charts and the list's sparklines. */
  history: HistoryWords;
  coin: {
    title(symbol: string): string;
    description(symbol: string, name: string): string;
    tableHeader: string;
    sellUsdt: string;
    sellToman: string;
    change: string;
    asOf: string;
    tetherRate: string;
    /**
     * The line under the rates: the source that priced the row (Markdown, escaped) and the age of
     * its price, with the source of the tether rate a price was converted at, if one was.
     */
    priceFrom(source: string, age: string, tetherSource: string | null): string;
  };
  coinNotFound: { title: string; description: string; youAskedFor: string };
  status: {
    title: string;
    description: string;
    verdict: Record<'pass' | 'warn' | 'fail', string>;
    statusName: Record<'pass' | 'warn' | 'fail', string>;
    headline(status: string, verdict: string): string;
    lastRefreshNone: string;
    lastRefresh(time: string, age: string): string;
    nextRefresh(time: string): string;
    currencies(count: string): string;
    checksHeading: string;
    tableHeader: string;
    never: string;
  };
  contact: {
    title: string;
    errorTitle: string;
    description: string;
    receivedTitle: string;
    receivedDescription: string;
  };
  terms: { title: string; description: string };
  clients: { title: string; description: string };

  form: {
    legend: string;
    submit: string;
    honeypotLabel: string;
    errorPrefix: string;
    problemHeading: string;
    notSent: string;
    tokenExpired: string;
    tokenMissing: string;
    tooManyRequests(perHour: string): string;
    fields: Record<FormFieldName, { label: string; hint: string; noun: string }>;
    giveOnce(noun: string): string;
    enter(noun: string): string;
    tooLong(noun: string, max: string): string;
    badCharacters(noun: string): string;
    badEmail: string;
  };
}

export type FormFieldName = 'name' | 'org' | 'email' | 'purpose' | 'expected_use';
