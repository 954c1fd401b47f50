import { type Command, InvalidArgumentError } from 'commander';
import { pino } from 'pino';
import { loadCatalog } from '../collector/catalog-file.ts';
import { type SourceTrial, type TrialResult, trySources } from '../collector/try-sources.ts';
import { loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { builtInSources } from '../sources/default-sources.ts';
import { readSourcesFile } from '../sources/load-sources.ts';
import { SourcesFileError } from '../sources/problem.ts';
import type { SourcesSetup } from '../sources/sources-setup.ts';
import { table, terminalSafe, terminalSafeJson } from './terminal-output.ts';

/** Markets named on a source's line at most; the count says how many. */
const missingShown = 5;

function seconds(value: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0 || parsed > 600) {
    throw new InvalidArgumentError('must be a number of seconds between 0 and 600');
  }
  return parsed;
}

function sourceLine(trial: SourceTrial): string {
  if (!trial.ok) return `FAILED: ${trial.detail}`;
  if (trial.missing.length === 0) return `ok: ${trial.detail}`;
  const shown = trial.missing.slice(0, missingShown).join(', ');
  const more = trial.missing.length > missingShown ? `, and ${trial.missing.length - missingShown} more` : '';
  return `ok: ${trial.detail} (not quoted: ${shown}${more})`;
}

function printTable(origin: string, result: TrialResult): void {
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
      ['source', 'kind', 'result'],
      ...result.sources.map((trial) => [trial.name, trial.kind, sourceLine(trial)]),
    ]),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

function printJson(origin: string, result: TrialResult): void {
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
    sources: result.sources,
  };
  process.stdout.write(`${terminalSafeJson(body)}\n`);
}

/** `nerkh sources check [FILE]`: tries a sources file once before it is deployed. */
export function registerSources(program: Command): void {
  const sources = program.command('sources').description('work with the sources file (NERKH_SOURCES_FILE)');
  sources
    .command('check')
    .description('validate a sources file, fetch each source once and print what would be published')
    .argument(
      '[file]',
      'the sources file; default NERKH_SOURCES_FILE, or the built-in Binance + Nobitex set-up',
    )
    .option('--json', 'print one JSON object instead of tables')
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
stream (binance) until every pair has ticked or the timeout. Prints, per coin, the source whose
price would be published with sell_usdt, sell_irt and as_of, then one line per source: ok (with
the markets it did not quote) or FAILED with the reason, e.g. "HTTP 451: Service unavailable
from a restricted location". Exits 1 when a source failed. Markups (NERKH_MARKUP_PCT,
NERKH_MARKUP_OVERRIDES) and the catalog (NERKH_CATALOG) apply as in the service. Logs go to
stderr at LOG_LEVEL (default silent here).

Example: nerkh sources check sources/iran.yaml`,
    )
    .action(async (file: string | undefined, options: { json?: boolean; timeout: number }) => {
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
      const result = await trySources({
        config,
        catalog,
        sources: setup,
        logger,
        timeoutMs: options.timeout * 1000,
      });
      if (options.json) printJson(setup.origin, result);
      else printTable(setup.origin, result);
      const failed = result.sources.filter((trial) => !trial.ok);
      if (failed.length > 0) {
        process.stderr.write(
          `nerkh: ${failed.length === 1 ? 'a source' : `${failed.length} sources`} failed: ${failed.map((trial) => terminalSafe(trial.name)).join(', ')}\n`,
        );
        process.exitCode = 1;
      }
    });
}
