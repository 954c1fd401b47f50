/**
 * The catalog of listed coins (docs/architecture.md#data): symbol, Persian name and the Binance pair that prices it.
 * Pure validation; loading the file is the caller's concern.
 */
export interface CatalogEntry {
  /** Published ticker, upper case, `^[A-Z0-9]{1,20}$`. */
  symbol: string;
  name_fa: string;
  /** Binance spot pair quoted in USDT, upper case (e.g. `BTCUSDT`); null for USDT itself. */
  pair: string | null;
}

export type Catalog = readonly CatalogEntry[];

export class CatalogError extends Error {
  override name = 'CatalogError';
}

const symbolPattern = /^[A-Z0-9]{1,20}$/;
const pairPattern = /^[A-Z0-9]{2,20}USDT$/;
/** Persian letters (Arabic block incl. پ چ ژ گ ک ی), digits, spaces and ZWNJ (U+200C). */
const persianPattern = /^[\u0600-\u06FF\u200C\u0020A-Za-z0-9.\-()]+$/;
const hasPersianLetter = /[\u0600-\u06FF]/;

/** Validates a parsed catalog file; the error names the first bad entry by index and symbol. */
export function parseCatalog(data: unknown): Catalog {
  if (!Array.isArray(data)) throw new CatalogError('catalog must be a JSON array of {symbol, name_fa, pair}');
  if (data.length === 0) throw new CatalogError('catalog is empty');
  const seenSymbols = new Set<string>();
  const seenPairs = new Set<string>();
  const entries: CatalogEntry[] = [];
  data.forEach((item: unknown, index) => {
    const where = `catalog entry #${index}`;
    if (typeof item !== 'object' || item === null) throw new CatalogError(`${where} is not an object`);
    const { symbol, name_fa, pair } = item as Record<string, unknown>;
    const label = typeof symbol === 'string' ? `${where} (${symbol})` : where;
    if (typeof symbol !== 'string' || !symbolPattern.test(symbol)) {
      throw new CatalogError(`${label}: symbol must match ${symbolPattern.source}`);
    }
    if (typeof name_fa !== 'string' || !persianPattern.test(name_fa) || !hasPersianLetter.test(name_fa)) {
      throw new CatalogError(`${label}: name_fa must be a Persian name`);
    }
    if (symbol === 'USDT') {
      if (pair !== null && pair !== undefined)
        throw new CatalogError(`${label}: USDT is priced by the toman source, pair must be null`);
    } else if (typeof pair !== 'string' || !pairPattern.test(pair)) {
      throw new CatalogError(`${label}: pair must be a Binance USDT pair like ${symbol}USDT`);
    }
    if (seenSymbols.has(symbol)) throw new CatalogError(`${label}: duplicate symbol`);
    seenSymbols.add(symbol);
    if (typeof pair === 'string') {
      if (seenPairs.has(pair)) throw new CatalogError(`${label}: duplicate pair ${pair}`);
      seenPairs.add(pair);
    }
    entries.push({ symbol, name_fa, pair: typeof pair === 'string' ? pair : null });
  });
  return entries;
}

/** `url` of a rate row: the configured template with the symbol filled in. */
export function coinUrl(template: string, symbol: string): string {
  return template.replaceAll('{symbol}', encodeURIComponent(symbol));
}
