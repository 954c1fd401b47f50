import { readFileSync } from 'node:fs';
import { LineCounter, parseDocument } from 'yaml';
import type { Config } from '../config.ts';
import type { Catalog } from '../domain/catalog.ts';
import { checkSources } from './check-sources.ts';
import { builtInSources } from './default-sources.ts';
import { type Problem, pointerTo, SourcesFileError } from './problem.ts';
import { schemaProblems } from './schema-problems.ts';
import { type SourceEntry, type SourcesFile, SourcesFileSchema, sourceSchemas } from './sources-schema.ts';
import {
  type ConfiguredSource,
  defaultReturnAfterSeconds,
  defaultStaleSeconds,
  type SourcesSetup,
} from './sources-setup.ts';
import { locate } from './yaml-locations.ts';

interface LoadContext {
  catalog: Catalog;
  /** Where the credentials the file names are read from; default process.env. */
  env?: NodeJS.ProcessEnv;
}

/** The file's shape: the document's own schema, then each source against its kind's schema. */
function shapeProblems(data: unknown): Problem[] {
  const problems = schemaProblems(SourcesFileSchema, data);
  const sources = (data as { sources?: unknown } | null)?.sources;
  if (!Array.isArray(sources)) return problems;
  sources.forEach((entry, index) => {
    const kind = (entry as { kind?: unknown } | null)?.kind;
    const schema = typeof kind === 'string' ? sourceSchemas[kind as keyof typeof sourceSchemas] : undefined;
    if (schema) problems.push(...schemaProblems(schema, entry, pointerTo('sources', index)));
  });
  return problems;
}

/** Credentials named by environment variable, as the headers the source sends them in. */
function secretHeadersOf(source: SourceEntry, env: NodeJS.ProcessEnv): Record<string, string> {
  const headers: Record<string, string> = {};
  if (source.kind === 'wallex' && source.api_key_env) headers['x-api-key'] = env[source.api_key_env] ?? '';
  if (source.kind === 'json-http') {
    for (const [header, variable] of Object.entries(source.headers_env ?? {}))
      headers[header] = env[variable] ?? '';
  }
  return headers;
}

function setupOf(file: SourcesFile, origin: string, env: NodeJS.ProcessEnv): SourcesSetup {
  const sources: ConfiguredSource[] = file.sources.map((source) => ({
    ...source,
    secretHeaders: secretHeadersOf(source, env),
  }));
  return {
    origin,
    sources,
    defaultRoutes: { usdt: file.routes.default.usdt ?? [], toman: file.routes.default.toman ?? [] },
    coinRoutes: new Map(Object.entries(file.routes.coins ?? {})),
    staleMs: (file.failover?.stale_seconds ?? defaultStaleSeconds) * 1000,
    returnAfterMs: (file.failover?.return_after_seconds ?? defaultReturnAfterSeconds) * 1000,
    ...(file.deviation?.max_pct === undefined ? {} : { maxDeviationPct: file.deviation.max_pct }),
  };
}

/**
 * Parses and validates the text of a sources file (YAML; JSON is YAML too). Every mistake found
 * is reported at once, each as `FILE:LINE:COL: /pointer: message`: first the YAML syntax, then
 * the shape, then the rules between the parts (names, routes, credentials), each phase only when
 * the one before it passed, since its findings would be guesses about a document it cannot read.
 */
export function parseSources(
  text: string,
  file: string,
  { catalog, env = process.env }: LoadContext,
): SourcesSetup {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new SourcesFileError(
      file,
      doc.errors.map((error) => {
        const { line, col } = lines.linePos(error.pos[0]);
        return `${file}:${line}:${col}: ${error.message}`;
      }),
    );
  }
  const data: unknown = doc.toJS({ maxAliasCount: 100 });
  let problems = shapeProblems(data);
  if (problems.length === 0) {
    const catalogSymbols = new Set(catalog.map((entry) => entry.symbol));
    problems = checkSources(data as SourcesFile, { catalogSymbols, env });
  }
  if (problems.length > 0) {
    const located = problems.map((problem) => ({
      ...problem,
      ...locate(doc, lines, problem.pointer, problem.atKey),
    }));
    // In the order of the file, as an editor walks through them.
    located.sort((a, b) => a.line - b.line || a.col - b.col);
    throw new SourcesFileError(
      file,
      located.map(
        ({ pointer, message, line, col }) => `${file}:${line}:${col}: ${pointer || '/'}: ${message}`,
      ),
    );
  }
  return setupOf(data as SourcesFile, file, env);
}

/** Reads and validates a sources file; an unreadable file is a SourcesFileError too. */
export function readSourcesFile(path: string, context: LoadContext): SourcesSetup {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new SourcesFileError(path, [`${path}: cannot read (${reason})`]);
  }
  return parseSources(text, path, context);
}

/** The sources in use: `NERKH_SOURCES_FILE` when set, else the built-in Binance + Nobitex set-up. */
export function loadSources(
  config: Config,
  catalog: Catalog,
  env: NodeJS.ProcessEnv = process.env,
): SourcesSetup {
  if (config.NERKH_SOURCES_FILE === undefined) return builtInSources(config);
  return readSourcesFile(config.NERKH_SOURCES_FILE, { catalog, env });
}
