/**
 * The `symbol` and `symbols` query parameters of `GET /v1/rates` (content/docs.md "GET /v1/rates"):
 * what the route's schema describes, and the details of the 400 that name the offending part. The
 * schema's patterns decide what is well formed; this only says which part is not, and folds the
 * list (case and duplicates) into the symbols to serve.
 */

/** One symbol: the syntax of `symbol` and of every item of `symbols`. */
export const symbolPattern = '^[A-Za-z0-9]{1,20}$';
/** `symbols`: one or more symbols separated by single commas; its length is checked after folding. */
export const symbolsPattern = '^[A-Za-z0-9]{1,20}(,[A-Za-z0-9]{1,20})*$';
/** The most distinct symbols one `symbols` request may name (after case and duplicates are folded). */
export const maxSymbols = 20;

const symbolShape = new RegExp(symbolPattern);

/** The detail of the 400 to a request that gives both parameters. */
export const bothSymbolParametersDetail =
  'Give symbol or symbols, not both: symbols=BTC,ETH asks for several.';

/** The query as Fastify parsed it, before or after validation: a repeated parameter is an array. */
interface RatesQuery {
  symbol?: unknown;
  symbols?: unknown;
}

/** An item as a detail may quote it: JSON-escaped and cut short, so a detail never carries much of a request. */
function quoted(item: string): string {
  return JSON.stringify(item.length > 24 ? `${item.slice(0, 24)}…` : item);
}

/** Why an item of `symbols` is malformed, naming it by position (1-based). */
function itemProblem(item: string, position: number): string | null {
  if (item === '')
    return `symbols item ${position} is empty; separate symbols with single commas (e.g. BTC,ETH).`;
  if (!symbolShape.test(item)) {
    return `symbols item ${position} (${quoted(item)}) is not 1 to 20 ASCII letters or digits.`;
  }
  return null;
}

/**
 * The detail of the 400 `invalid-symbol` for a query the schema refused, naming the parameter and,
 * in a list, the item at fault.
 */
export function symbolQueryDetail(query: RatesQuery): string {
  if (query.symbol !== undefined && query.symbols !== undefined) return bothSymbolParametersDetail;
  if (query.symbols !== undefined) {
    if (typeof query.symbols !== 'string') {
      return 'symbols must be given once, as one comma-separated list (e.g. BTC,ETH,SOL).';
    }
    if (query.symbols === '') return 'symbols is empty; give 1 to 20 comma-separated symbols (e.g. BTC,ETH).';
    const items = query.symbols.split(',');
    for (const [index, item] of items.entries()) {
      const found = itemProblem(item, index + 1);
      if (found !== null) return found;
    }
  }
  return 'symbol must be 1 to 20 ASCII letters or digits, given once (e.g. BTC).';
}

/**
 * The distinct symbols a well-formed query asks for, upper case, in the order first named; or the
 * detail of a 400 for what the schema cannot say: both parameters, or more than `maxSymbols`.
 */
export function requestedSymbols(symbols: string): { symbols: string[] } | { problem: string } {
  const distinct = [...new Set(symbols.toUpperCase().split(','))];
  if (distinct.length > maxSymbols) {
    return {
      problem: `symbols names ${distinct.length} distinct currencies; at most ${maxSymbols} per request (or omit it for all).`,
    };
  }
  return { symbols: distinct };
}
