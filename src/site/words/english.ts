import { STATUS_CODES } from 'node:http';
import { errorCatalog } from '../../web/error-catalog.ts';
import { englishHistoryWords } from './english-chart-text.ts';
import {
  formatAge,
  formatChange,
  formatDuration,
  formatRateTime,
  formatTime,
  formatToman,
  formatUsdt,
} from './english-format.ts';
import type { SiteWords } from './site-words.ts';

/** The website's English: the default language, at the root of the site. */
export const englishWords: SiteWords = {
  language: 'en',
  dir: 'ltr',
  ownName: 'English',

  integer: (value) => String(value),
  toman: formatToman,
  usdt: formatUsdt,
  change: formatChange,
  time: formatTime,
  rateTime: formatRateTime,
  age: formatAge,
  duration: formatDuration,

  layout: {
    skipLink: 'Skip to main content',
    siteNavLabel: 'Site',
    nav: {
      '/': 'Overview',
      '/docs': 'API docs',
      '/docs/errors': 'Errors',
      '/coins': 'Coins',
      '/clients': 'Clients',
      '/status': 'Status',
      '/contact': 'Get a key',
      '/terms': 'Terms',
    },
    machineHeading: 'For programs and AI agents',
    machineLinks: {
      '/v1/openapi.json': 'OpenAPI description',
      '/.well-known/api-catalog': 'API catalog (RFC 9727)',
      '/llms.txt': 'llms.txt',
      '/llms-full.txt': 'llms-full.txt',
      '/SKILL.md': 'SKILL.md for agents',
      '/v1/health': 'Health (JSON)',
    },
    footerHtml: (termsHref) =>
      `Every page is also available as Markdown: request it with <code>Accept: text/markdown</code>. Rates are informational; see the <a href="${termsHref}">terms</a>.`,
    languageSwitchLabel: 'Language',
    titleSuffix: 'nerkh',
  },

  overview: {
    title: 'Sell rates of digital currencies in tether and toman',
    description: (count) =>
      `Current sell rates of ${count ?? 'listed'} digital currencies in tether (USDT) and toman, for programs and AI agents.`,
    noRates:
      'No rates have been published yet: the service has just started and its first refresh has not completed.',
    currencies: (count) => `Currencies listed: **${count}**`,
    lastRefresh: (time, age) => `Last refresh: **${time}** (${age})`,
    tetherSells: (toman) => `Tether (USDT) sells at: **${toman}**`,
  },
  docs: {
    title: 'API reference',
    description:
      'How to call the nerkh rates API: authentication, fields, rate limits, caching, errors and examples.',
    errorTableHeader: '| Status | Code | Title |',
  },
  errors: {
    title: 'Errors',
    description: 'Every problem type the nerkh API answers with, under its own anchor.',
    entry: (code) => errorCatalog[code],
    statusLine: (status, title) => `**${status} ${STATUS_CODES[Number(status)] ?? ''}**: ${title}.`,
    problemType: 'Problem `type`',
  },
  coins: {
    title: 'Coins',
    description: 'Every listed digital currency with its current sell rate in tether and toman.',
    noRates: 'No rates have been published yet: the first refresh has not completed.',
    summary: (count, time, tether) =>
      `${count} currencies, refreshed at ${time}. Tether (USDT) sells at ${tether}.`,
    filterSummary: (count, query, showAll) =>
      `${count === 0 ? 'None' : `${count} of them`} ${count === 1 ? 'has' : 'have'} a symbol, English or Persian name containing “${query}”: [show all coins](${showAll}).`,
    columns: {
      symbol: 'Symbol',
      name: 'Name',
      usdt: 'Sell (USDT)',
      toman: 'Sell (toman)',
      change: '24 h',
      trend: 'Last 24 hours',
      asOf: 'As of',
    },
    trendMarkdown: 'Last 24 hours, low – high (USDT)',
    list: {
      table: 'Coins',
      filter: 'Filter by symbol or name',
      filterHint: 'English or Persian: for example BTC, bitcoin or بیت‌کوین; part of a name is enough.',
      apply: 'Filter',
      sortAction: (order) => (order === 'asc' ? 'sort ascending' : 'sort descending'),
    },
  },
  history: englishHistoryWords,
  coin: {
    title: (symbol) => `${symbol} sell rate`,
    description: (symbol, name) => `Current sell rate of ${symbol} (${name}) in tether and toman.`,
    tableHeader: '| Rate | Value |',
    sellUsdt: 'Sell rate in tether',
    sellToman: 'Sell rate in toman',
    change: 'Change over 24 hours',
    asOf: 'As of',
    tetherRate: 'Tether rate used',
    priceFrom: (source, age, tetherSource) =>
      tetherSource === null
        ? `Price from ${source}, ${age}.`
        : `Price from ${source}, ${age}; converted between tether and toman at the tether rate from ${tetherSource}.`,
  },
  coinNotFound: {
    title: 'Coin not found',
    description: 'No listed currency has this symbol.',
    youAskedFor: 'you asked for',
  },
  status: {
    title: 'Service status',
    description: 'Freshness of the rates and state of the data sources, for people.',
    verdict: {
      pass: 'All good: the data is fresh and every source is connected.',
      warn: 'Degraded: rates are still served, but a source has a problem, the last snapshot commit failed or the data is getting old.',
      fail: 'Failing: the rates must not be relied on right now.',
    },
    statusName: { pass: 'pass', warn: 'warn', fail: 'fail' },
    headline: (status, verdict) => `**Status: ${status}.** ${verdict}`,
    lastRefreshNone: 'Last refresh: none yet',
    lastRefresh: (time, age) => `Last refresh: ${time} (${age})`,
    nextRefresh: (time) => `Next refresh due: ${time}`,
    currencies: (count) => `Currencies listed: ${count}`,
    checksHeading: 'Checks',
    tableHeader: '| Check | Status | Last seen | Details |',
    never: 'never',
  },
  contact: {
    title: 'Request an API key',
    errorTitle: 'Error: Request an API key',
    description: 'Ask for an API key: keys are issued by hand to known organisations.',
    receivedTitle: 'Request received',
    receivedDescription: 'Your request for an API key was stored and will be reviewed.',
  },
  clients: {
    title: 'Clients',
    description:
      'A typed TypeScript client and an MCP server for the nerkh rates API, with configuration for MCP hosts.',
  },
  terms: {
    title: 'Terms of use',
    description: 'The rates are informational; what they are and how the API may be used.',
  },

  form: {
    legend: 'Key request',
    submit: 'Send request',
    honeypotLabel: 'Leave this field empty',
    errorPrefix: 'Error:',
    problemHeading: 'There is a problem',
    notSent: 'Your request was not sent.',
    tokenExpired: 'The form was loaded more than two hours ago. Load the contact page again and resubmit.',
    tokenMissing:
      'The form was not loaded from this site in this browser session. Load the contact page again and resubmit; cookies must be enabled.',
    tooManyRequests: (perHour) =>
      `This network has sent ${perHour} key requests in the last hour, the most the contact page accepts. Try again in an hour; requests already sent are being reviewed.`,
    fields: {
      name: { label: 'Your name', hint: 'The person we should reply to.', noun: 'your name' },
      org: {
        label: 'Organisation',
        hint: 'Keys are issued to organisations, one per consumer.',
        noun: 'your organisation',
      },
      email: { label: 'Email', hint: 'Where we send the key or our questions.', noun: 'your email address' },
      purpose: {
        label: 'Purpose',
        hint: 'What the key is for: your application and how it uses the rates.',
        noun: 'the purpose of the key',
      },
      expected_use: {
        label: 'Expected use (optional)',
        hint: 'For example: one request per minute from one server.',
        noun: 'the expected use',
      },
    },
    giveOnce: (noun) => `Give ${noun} once.`,
    enter: (noun) => `Enter ${noun}.`,
    tooLong: (noun, max) => `${capitalise(noun)} must be ${max} characters or fewer.`,
    badCharacters: (noun) => `${capitalise(noun)} contains characters that are not allowed.`,
    badEmail: 'Enter an email address like name@example.com.',
  },
};

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
