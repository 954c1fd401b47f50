import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { type Catalog, CatalogError, parseCatalog } from '../domain/catalog.ts';
import { projectRoot } from '../project-root.ts';

/**
 * The catalog shipped with nerkh, found from the project's folder whatever the working directory is.
 */
export const bundledCatalogPath = join(projectRoot, 'catalog', 'coins.json');

/**
 * Reads and validates a catalog file: the operator's `NERKH_CATALOG` when given, else the bundled
 * one. Every failure is a CatalogError whose message names the file, and for a bad entry its line
 * (`catalog/coins.json:12: catalog entry #10 (AVAX): ...`), so a boot failure points at the line to fix.
 */
export function loadCatalog(path: string = bundledCatalogPath): Catalog {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new CatalogError(`catalog ${path}: cannot read (${reason})`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new CatalogError(`catalog ${path}: not valid JSON (${(error as Error).message})`);
  }
  try {
    return parseCatalog(data);
  } catch (error) {
    const index = error instanceof CatalogError ? error.entryIndex : undefined;
    const line = index === undefined ? undefined : entryLine(text, index);
    const place = line === undefined ? path : `${path}:${line}`;
    throw new CatalogError(`catalog ${place}: ${(error as Error).message}`, index);
  }
}

/**
 * The line on which the array's entry `index` starts. JSON.parse keeps no positions; the yaml
 * package's parser reads JSON (a subset of YAML 1.2) with the source range of every node.
 */
function entryLine(text: string, index: number): number | undefined {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter });
  const contents = document.contents as { items?: { range?: [number, number, number] }[] } | null;
  const start = contents?.items?.[index]?.range?.[0];
  return start === undefined ? undefined : lineCounter.linePos(start).line;
}
