import { type Static, Type } from 'typebox';
import type { RateRow } from '../../domain/rates.ts';

/**
 * The coins list's filter and sort, read from the query string so they work as plain links and a
 * GET form, without script: `?q=` keeps the rows whose symbol, English or Persian name contains the text,
 * `?sort=` and `?order=` order them. Bad values are refused by the route's schema (400 problem).
 */

export const coinSortKeys = ['symbol', 'name', 'usdt', 'toman', 'change', 'as_of'] as const;
export type CoinSortKey = (typeof coinSortKeys)[number];
export type SortOrder = 'asc' | 'desc';

/** The longest filter text accepted: longer than any symbol or name in a catalog. */
export const maxFilterLength = 40;

export const CoinListQuerySchema = Type.Object({
  q: Type.Optional(Type.String({ maxLength: maxFilterLength })),
  sort: Type.Optional(Type.Union(coinSortKeys.map((key) => Type.Literal(key)))),
  order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
});
export type CoinListQueryString = Static<typeof CoinListQuerySchema>;

export interface CoinListQuery {
  /** Trimmed filter text; '' keeps every row. */
  q: string;
  sort: CoinSortKey;
  order: SortOrder;
}

export const defaultCoinListQuery: CoinListQuery = { q: '', sort: 'symbol', order: 'asc' };

export function coinListQuery(query: CoinListQueryString = {}): CoinListQuery {
  return {
    q: (query.q ?? '').trim(),
    sort: query.sort ?? defaultCoinListQuery.sort,
    order: query.order ?? defaultCoinListQuery.order,
  };
}

/** The query string that shows the list this way ('' for the default list), defaults left out. */
export function coinListSearch(query: CoinListQuery): string {
  const params = new URLSearchParams();
  if (query.q !== '') params.set('q', query.q);
  if (query.sort !== defaultCoinListQuery.sort || query.order !== defaultCoinListQuery.order) {
    params.set('sort', query.sort);
    params.set('order', query.order);
  }
  const search = params.toString();
  return search === '' ? '' : `?${search}`;
}

/** The list a column's heading links to: a second click on the sorted column reverses it; any other starts ascending. */
export function sortedBy(query: CoinListQuery, sort: CoinSortKey): CoinListQuery {
  const order = sort === query.sort && query.order === 'asc' ? 'desc' : 'asc';
  return { ...query, sort, order };
}

/**
 * Folds the ways one name is typed: case, Arabic yeh and kaf (common on Arabic keyboards) as
 * Persian ones, and ZWNJ and spaces left out, so "بیت کوین", "بیتکوین" and "بيت‌كوين" all find
 * بیت‌کوین, and "bit coin" and "BITCOIN" find Bitcoin.
 */
function foldForSearch(text: string): string {
  return text
    .normalize('NFC')
    .replace(/[\u064A\u0649]/g, '\u06CC')
    .replace(/\u0643/g, '\u06A9')
    .replace(/[\u200C\s]/g, '')
    .toLowerCase();
}

/**
 * The names a list is filtered and sorted by: the rows' Persian names, and the catalog's English
 * ones (the API's rate record carries no English name). `language` is the page's: its name column
 * is sorted by the name it shows.
 */
export interface CoinNames {
  english(symbol: string): string | undefined;
  language: 'en' | 'fa';
}

function sortValues(names: CoinNames): Record<CoinSortKey, (row: RateRow) => string | number | null> {
  return {
    symbol: (row) => row.symbol,
    // English names are compared without case: `dYdX` and `eCash` among `Dash` and `Ethereum`.
    name: (row) =>
      names.language === 'en' ? (names.english(row.symbol) ?? row.symbol).toLowerCase() : row.name_fa,
    usdt: (row) => row.sell_usdt,
    toman: (row) => row.sell_irt,
    change: (row) => row.change_24h,
    as_of: (row) => Date.parse(row.as_of),
  };
}

/**
 * Persian alphabetical order (پ after ب, گ after ک), which code points do not give. Made on the
 * first sort by name: Intl's collation data is only loaded when someone asks for it.
 */
let persianCollator: Intl.Collator | undefined;
function compareText(left: string, right: string, persian: boolean): number {
  if (!persian) return left < right ? -1 : left > right ? 1 : 0;
  persianCollator ??= new Intl.Collator('fa');
  return persianCollator.compare(left, right);
}

/** The rows the query keeps, in its order; rows without a value for the sort column come last. */
export function listCoins(rows: readonly RateRow[], query: CoinListQuery, names: CoinNames): RateRow[] {
  const wanted = foldForSearch(query.q);
  const kept =
    wanted === ''
      ? [...rows]
      : rows.filter((row) =>
          [row.symbol, row.name_fa, names.english(row.symbol) ?? ''].some((name) =>
            foldForSearch(name).includes(wanted),
          ),
        );
  const keyOf = sortValues(names)[query.sort];
  const direction = query.order === 'asc' ? 1 : -1;
  return kept.sort((a, b) => {
    const left = keyOf(a);
    const right = keyOf(b);
    if (left === null || right === null) return left === right ? 0 : left === null ? 1 : -1;
    const order =
      typeof left === 'string'
        ? compareText(left, right as string, query.sort === 'name' && names.language === 'fa')
        : left - (right as number);
    return order * direction || compareText(a.symbol, b.symbol, false);
  });
}
