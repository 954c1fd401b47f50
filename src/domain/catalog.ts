/**
 * The catalog of listed coins (docs/architecture.md#data): symbol, Persian and English name and the
 * Binance pair that prices it. The English name is the website's (English pages and the coins
 * filter); the API's rate record carries only the Persian one, as the specification defines it.
 * Pure validation; loading the file is the caller's concern.
 */
export interface CatalogEntry {
  /** Published ticker, upper case, `^[A-Z0-9]{1,20}$`. */
  symbol: string;
  name_fa: string;
  /** The name English readers know the coin by (`Bitcoin`), shown beside the symbol on English pages. */
  name_en: string;
  /** Binance spot pair quoted in USDT, upper case (e.g. `BTCUSDT`); null for USDT itself. */
  pair: string | null;
}

export type Catalog = readonly CatalogEntry[];

export class CatalogError extends Error {
  override name = 'CatalogError';
  /** Index of the bad entry in the array, when one entry is at fault: the loader turns it into a line. */
  readonly entryIndex: number | undefined;

  constructor(message: string, entryIndex?: number) {
    super(message);
    this.entryIndex = entryIndex;
  }
}

const symbolPattern = /^[A-Z0-9]{1,20}$/;
const pairPattern = /^[A-Z0-9]{2,20}USDT$/;
/** Persian letters (Arabic block incl. پ چ ژ گ ک ی), digits, spaces and ZWNJ (U+200C). */
const persianPattern = /^[\u0600-\u06FF\u200C\u0020A-Za-z0-9.\-()]+$/;
const hasPersianLetter = /[\u0600-\u06FF]/;
/** Latin letters and digits with the punctuation coin names use (`yearn.finance`, `0x Protocol`). */
const englishPattern = /^[A-Za-z0-9][A-Za-z0-9 .'-]{0,59}$/;

/** Validates a parsed catalog file; the error names the first bad entry by index and symbol. */
export function parseCatalog(data: unknown): Catalog {
  if (!Array.isArray(data))
    throw new CatalogError('catalog must be a JSON array of {symbol, name_fa, name_en, pair}');
  if (data.length === 0) throw new CatalogError('catalog is empty');
  const seenSymbols = new Set<string>();
  const seenPairs = new Set<string>();
  const entries: CatalogEntry[] = [];
  data.forEach((item: unknown, index) => {
    const where = `catalog entry #${index}`;
    const fail = (message: string) => new CatalogError(message, index);
    if (typeof item !== 'object' || item === null) throw fail(`${where} is not an object`);
    const { symbol, name_fa, name_en, pair } = item as Record<string, unknown>;
    const label = typeof symbol === 'string' ? `${where} (${symbol})` : where;
    if (typeof symbol !== 'string' || !symbolPattern.test(symbol)) {
      throw fail(`${label}: symbol must match ${symbolPattern.source}`);
    }
    if (typeof name_fa !== 'string' || !persianPattern.test(name_fa) || !hasPersianLetter.test(name_fa)) {
      throw fail(`${label}: name_fa must be a Persian name`);
    }
    if (typeof name_en !== 'string' || !englishPattern.test(name_en)) {
      throw fail(`${label}: name_en must be the coin's English name (Latin letters, digits, spaces, . ' -)`);
    }
    if (symbol === 'USDT') {
      if (pair !== null && pair !== undefined)
        throw fail(`${label}: USDT is priced by the toman source, pair must be null`);
    } else if (typeof pair !== 'string' || !pairPattern.test(pair)) {
      throw fail(`${label}: pair must be a Binance USDT pair like ${symbol}USDT`);
    }
    if (seenSymbols.has(symbol)) throw fail(`${label}: duplicate symbol`);
    seenSymbols.add(symbol);
    if (typeof pair === 'string') {
      if (seenPairs.has(pair)) throw fail(`${label}: duplicate pair ${pair}`);
      seenPairs.add(pair);
    }
    entries.push({ symbol, name_fa, name_en, pair: typeof pair === 'string' ? pair : null });
  });
  return entries;
}

/** `url` of a rate row: the configured template with the symbol filled in. */
export function coinUrl(template: string, symbol: string): string {
  return template.replaceAll('{symbol}', encodeURIComponent(symbol));
}
