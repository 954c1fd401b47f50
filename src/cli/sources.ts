import { type Command, InvalidArgumentError } from 'commander';
import { pino } from 'pino';
import { loadCatalog } from '../catalog/catalog-file.ts';
import {
  type CoinComparison,
  type SourceTrial,
  type TrialResult,
  trySources,
} from '../collector/try-sources.ts';
import { loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { builtInSources } from '../sources/default-sources.ts';
import { readSourcesFile } from '../sources/load-sources.ts';
import type { MarketUnit } from '../sources/market-units.ts';
import { SourcesFileError } from '../sources/problem.ts';
import { defaultMaxDeviationPct, type SourcesSetup } from '../sources/sources-setup.ts';
import { table, terminalSafe, terminalSafeJson } from './terminal-output.ts';

/** Markets named in one cell at most (a source's missing markets, a group of markets); the rest counted. */
const marketsShown = 5;

function seconds(value: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0 || parsed > 600) {
    throw new InvalidArgumentError('must be a number of seconds between 0 and 600');
  }
  return parsed;
}

function percent(value: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0 || parsed > 1000) {
    throw new InvalidArgumentError('must be a percentage above 0 and at most 1000');
  }
  return parsed;
}

/** `+0.21%`, `-90.00%`: a deviation as printed. */
function signedPct(value: number): string {
  return `${value >= 0 ? '+' : ''}${value.toFixed(2)}%`;
}

const unitWords = {
  'ten-times-high': '10x high: a rial price read as toman?',
  'ten-times-low': '10x low: a toman price read as rial?',
} as const;

/** An ask as written, never in exponent form: 8.9e-7 is 0.00000089. */
function plain(value: number): string {
  return value.toLocaleString('en-US', { useGrouping: false, maximumSignificantDigits: 17 });
}

/** One source's ask in a comparison: `bitpin 10524.9 (-90.00%, DEVIATES, 10x low: …)`. */
function askCell(source: CoinComparison['sources'][number]): string {
  const notes = [signedPct(source.deviationPct)];
  if (source.deviating) notes.push('DEVIATES');
  if (source.unitHint !== null) notes.push(unitWords[source.unitHint]);
  return `${terminalSafe(source.source)} ${plain(source.ask)} (${notes.join(', ')})`;
}

/** The sources that deviate on some coin, each with how many coins. */
function deviatingSources(comparisons: readonly CoinComparison[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const comparison of comparisons) {
    for (const source of comparison.sources) {
      if (source.deviating) counts.set(source.source, (counts.get(source.source) ?? 0) + 1);
    }
  }
  return counts;
}

function comparisonLines(comparisons: readonly CoinComparison[], maxDeviationPct: number): string[] {
  if (comparisons.length === 0) {
    return ['No coin is quoted by two sources that answered: nothing to compare.'];
  }
  const rows = comparisons.map((comparison) => [
    comparison.symbol,
    comparison.currency,
    `${comparison.spreadPct.toFixed(2)}%`,
    comparison.sources.map(askCell).join('; '),
  ]);
  const deviating = deviatingSources(comparisons);
  const pairFlagged = comparisons.some(
    (comparison) => comparison.sources.length === 2 && comparison.sources.some((source) => source.deviating),
  );
  const summary =
    deviating.size === 0
      ? `Every source is within ${maxDeviationPct}% of the others on every coin.`
      : `Deviating beyond ${maxDeviationPct}%: ${[...deviating].map(([name, coins]) => `${terminalSafe(name)} on ${coins} ${coins === 1 ? 'coin' : 'coins'}`).join(', ')}.${pairFlagged ? ' Two sources that disagree are both flagged: a third tells which is off.' : ''}`;
  return [
    `Coins quoted by two or more sources that answered, asks before markup (a source further than ${maxDeviationPct}% from the others is flagged):`,
    '',
    table([['symbol', 'currency', 'spread', 'asks (deviation from the others)'], ...rows]),
    '',
    summary,
  ];
}

/**
 * Whether this server can reach the source: `reachable`; `refused` when the exchange answered 451
 * or 403 (a location or an address it refuses); `timeout` when it did not answer in time; `error`
 * for anything else (a refused connection, 5xx, bodies it could not read).
 */
export function reachOf(trial: SourceTrial): 'reachable' | 'refused' | 'timeout' | 'error' {
  if (trial.ok) return 'reachable';
  if (/^HTTP (451|403)\b/.test(trial.detail)) return 'refused';
  if (/^no answer within\b|^stalled\b/.test(trial.detail)) return 'timeout';
  return 'error';
}

/** `a, b, c, d, e, and 170 more`. */
function listed(names: readonly string[]): string {
  const shown = names.slice(0, marketsShown).join(', ');
  return names.length > marketsShown ? `${shown}, and ${names.length - marketsShown} more` : shown;
}

function sourceLine(trial: SourceTrial): string {
  if (!trial.ok) return `FAILED: ${trial.detail}`;
  if (trial.missing.length === 0) return `ok: ${trial.detail}`;
  return `ok: ${trial.detail} (not quoted: ${listed(trial.missing)})`;
}

/** A unit as quoted, as an operator reads it: a rial ask is divided by 10 into toman. */
function quotedWords(quotedIn: string): string {
  return quotedIn === '' ? '-' : quotedIn.replace('rial', 'rial ÷ 10');
}

/** `shib-rls (or 1k_shib-rls)`: a market the source may answer under another name, in a list. */
function marketWords(market: MarketUnit): string {
  if (market.market === '') return `${market.symbol}/${market.currency}: -`;
  const [first, ...others] = market.market.split(' or ');
  return others.length === 0 ? (first as string) : `${first} (or ${others.join(', ')})`;
}

/** `1,000`: a bundle's size read at a glance. */
function coinCount(count: number): string {
  return count.toLocaleString('en-US');
}

/**
 * How each source quotes the markets it reads. A source reads up to every coin of the catalog in
 * each currency, so by default its markets are grouped by unit and coins per quote, the few
 * bundles (SHIB at Nobitex, per 1,000) in groups of their own; `--markets` lists each one.
 */
function marketLines(trials: readonly SourceTrial[], every: boolean): string[] {
  const reading = trials.filter((trial) => trial.markets.length > 0);
  if (reading.length === 0) return [];
  if (every) {
    const rows = reading.flatMap((trial) =>
      trial.markets.map((market) => [
        trial.name,
        market.symbol,
        market.currency,
        market.market === '' ? '-' : marketWords(market),
        quotedWords(market.quotedIn),
        coinCount(market.coinsPerQuote),
      ]),
    );
    return [
      'Every market each source reads, the unit of its asks and how many coins one ask prices (each price is published per one coin):',
      '',
      table([['source', 'coin', 'currency', 'market', 'quoted in', 'coins per quote'], ...rows]),
      '',
    ];
  }
  const rows: string[][] = [];
  for (const trial of reading) {
    const groups = new Map<string, { quotedIn: string; coinsPerQuote: number; names: string[] }>();
    for (const market of trial.markets) {
      const key = `${market.quotedIn}/${market.coinsPerQuote}`;
      const group = groups.get(key) ?? {
        quotedIn: market.quotedIn,
        coinsPerQuote: market.coinsPerQuote,
        names: [],
      };
      group.names.push(marketWords(market));
      groups.set(key, group);
    }
    // Each unit in the order the source's markets are asked, its bundles after its single coins.
    const units = [...new Set(trial.markets.map((market) => market.quotedIn))];
    const sorted = [...groups.values()].sort(
      (a, b) => units.indexOf(a.quotedIn) - units.indexOf(b.quotedIn) || a.coinsPerQuote - b.coinsPerQuote,
    );
    for (const group of sorted) {
      rows.push([
        trial.name,
        quotedWords(group.quotedIn),
        coinCount(group.coinsPerQuote),
        `${group.names.length}: ${listed(group.names)}`,
      ]);
    }
  }
  return [
    'How each source quotes the markets it reads: the unit of its asks and how many coins one ask prices (each price is published per one coin; --markets lists every market):',
    '',
    table([['source', 'quoted in', 'coins per quote', 'markets'], ...rows]),
    '',
  ];
}

function printTable(
  origin: string,
  result: TrialResult,
  maxDeviationPct: number,
  everyMarket: boolean,
): void {
  const rows = result.draft.rates.map((row) => [
    row.symbol,
    result.servedBy.get(row.symbol) ?? '',
    String(row.sell_usdt),
    row.sell_irt === null ? '-' : String(row.sell_irt),
    row.as_of,
  ]);
  const lines = [
    `Sources: ${terminalSafe(origin)}. What a snapshot would publish now (${result.draft.rates.length} rows, source "${terminalSafe(result.draft.source)}"):`,
    '',
    table([['symbol', 'source', 'sell_usdt', 'sell_irt', 'as_of'], ...rows]),
    '',
    table([
      ['source', 'kind', 'reach', 'result'],
      ...result.sources.map((trial) => [trial.name, trial.kind, reachOf(trial), sourceLine(trial)]),
    ]),
    '',
    ...marketLines(result.sources, everyMarket),
    ...comparisonLines(result.comparisons, maxDeviationPct),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

function printJson(origin: string, result: TrialResult, maxDeviationPct: number): void {
  const body = {
    file: origin,
    source: result.draft.source,
    usdt_irt: result.draft.usdt_irt,
    rates: result.draft.rates.map((row) => ({
      symbol: row.symbol,
      source: result.servedBy.get(row.symbol) ?? null,
      sell_usdt: row.sell_usdt,
      sell_irt: row.sell_irt,
      as_of: row.as_of,
    })),
    sources: result.sources.map((trial) => ({
      ...trial,
      markets: trial.markets.map((market) => ({
        symbol: market.symbol,
        currency: market.currency,
        market: market.market,
        quoted_in: market.quotedIn,
        coins_per_quote: market.coinsPerQuote,
      })),
      reach: reachOf(trial),
    })),
    max_deviation_pct: maxDeviationPct,
    comparisons: result.comparisons.map((comparison) => ({
      symbol: comparison.symbol,
      currency: comparison.currency,
      spread_pct: comparison.spreadPct,
      sources: comparison.sources.map((source) => ({
        source: source.source,
        ask: source.ask,
        reference: source.reference,
        deviation_pct: source.deviationPct,
        deviating: source.deviating,
        unit_hint: source.unitHint,
      })),
    })),
  };
  process.stdout.write(`${terminalSafeJson(body)}\n`);
}

/** `nerkh sources check [FILE]`: tries a sources file once before it is deployed. */
export function registerSources(program: Command): void {
  const sources = program.command('sources').description('work with the sources file (NERKH_SOURCES_FILE)');
  sources
    .command('check')
    .description(
      'validate a sources file, fetch each source once, print what would be published, how each market is quoted, and compare the sources',
    )
    .argument(
      '[file]',
      'the sources file; default NERKH_SOURCES_FILE, or the built-in Binance + Nobitex set-up',
    )
    .option('--json', 'print one JSON object instead of tables (every market listed)')
    .option(
      '--markets',
      'list every market each source reads, one a line, instead of grouped by unit and coins per quote',
    )
    .option(
      '--max-deviation <percent>',
      "flag a source further than this from the others on a coin (default: the file's deviation.max_pct, else 5)",
      percent,
    )
    .option(
      '--timeout <seconds>',
      'how long a source may take to answer (a stream: to quote every pair)',
      seconds,
      10,
    )
    .addHelpText(
      'after',
      `
Validates the file and lists every mistake as FILE:LINE:COL: /pointer: message (exit 2). Then
starts each source once: a polled source (nobitex, wallex, json-http) until it has answered, a
source with one URL per market until every market has answered (as fast as its
max_requests_per_minute allows), a stream (binance) until every pair has ticked or the timeout.

Prints, per coin, the source whose price would be published with sell_usdt, sell_irt and as_of;
then one line per source: reachable ("ok", with the markets it did not quote) or FAILED with the
reason: "HTTP 451: …" (the exchange refuses this server's location), "no answer within 10 s"
(timeout), "request failed (…)" or another error.

Then how each source quotes the markets it reads, every price being published per one coin: the
unit of its asks (usdt, toman, or rial ÷ 10 into toman) and how many coins one ask prices (1, or
a bundle: SHIB at Nobitex is priced per 1,000). Markets are grouped by the two, the first five of
each group named; --markets lists every one with its coin and currency instead, and --json
always does (sources[].markets).

Then, for every coin quoted by two or more sources that answered, the spread between them and
each source's deviation from the others (the median of all with three or more, the other one
with two); a source further than --max-deviation is flagged, and one about 10x off is named as a
likely unit mistake (a toman price configured as rial, or the reverse).

Exits 1 when a source failed or deviates. Markups (NERKH_MARKUP_PCT, NERKH_MARKUP_OVERRIDES) and
the catalog (NERKH_CATALOG) apply to the published table as in the service; the comparison is of
the asks before markup. Logs go to stderr at LOG_LEVEL (default silent here).

Examples:
  nerkh sources check sources/iran.yaml
  nerkh sources check sources/iran.yaml --markets
  nerkh sources check sources/bitpin.yaml --max-deviation 2 --json`,
    )
    .action(
      async (
        file: string | undefined,
        options: { json?: boolean; markets?: boolean; timeout: number; maxDeviation?: number },
      ) => {
        const config = loadConfig({ LOG_LEVEL: 'silent', ...process.env });
        const catalog = loadCatalog(config.NERKH_CATALOG);
        const path = file ?? config.NERKH_SOURCES_FILE;
        let setup: SourcesSetup;
        try {
          setup = path === undefined ? builtInSources(config) : readSourcesFile(path, { catalog });
        } catch (error) {
          if (!(error instanceof SourcesFileError)) throw error;
          // The file is the operator's, but its text is echoed: each line is made inert on its own.
          process.stderr.write(`nerkh: ${error.message.split('\n').map(terminalSafe).join('\n')}\n`);
          process.exitCode = 2;
          return;
        }
        const logger = createLogger(config.LOG_LEVEL, pino.destination(2));
        const maxDeviationPct = options.maxDeviation ?? setup.maxDeviationPct ?? defaultMaxDeviationPct;
        const result = await trySources({
          config,
          catalog,
          sources: setup,
          logger,
          timeoutMs: options.timeout * 1000,
          maxDeviationPct,
        });
        if (options.json) printJson(setup.origin, result, maxDeviationPct);
        else printTable(setup.origin, result, maxDeviationPct, options.markets === true);
        const failed = result.sources.filter((trial) => !trial.ok);
        if (failed.length > 0) {
          process.stderr.write(
            `nerkh: ${failed.length === 1 ? 'a source' : `${failed.length} sources`} failed: ${failed.map((trial) => terminalSafe(trial.name)).join(', ')}\n`,
          );
          process.exitCode = 1;
        }
        const deviating = deviatingSources(result.comparisons);
        if (deviating.size > 0) {
          process.stderr.write(
            `nerkh: ${deviating.size === 1 ? 'a source deviates' : `${deviating.size} sources deviate`} more than ${maxDeviationPct}% from the others: ${[...deviating.keys()].map(terminalSafe).join(', ')}\n`,
          );
          process.exitCode = 1;
        }
      },
    );
}
