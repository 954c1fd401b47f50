import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Catalog, CatalogError, parseCatalog } from '../domain/catalog.ts';
import { projectRoot } from '../project-root.ts';

/**
 * The catalog shipped with nerkh, found from the project's folder whatever the working directory is.
 */
export const bundledCatalogPath = join(projectRoot, 'catalog', 'coins.json');

/**
 * Reads and validates a catalog file: the operator's `NERKH_CATALOG` when given, else the bundled
 * one. Every failure is a CatalogError whose message names the file, and for a bad entry the entry
 * (parseCatalog names it by index and symbol), so a boot failure points at the line to fix.
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
    throw new CatalogError(`catalog ${path}: ${(error as Error).message}`);
  }
}
