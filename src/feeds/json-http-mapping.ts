/**
 * The `json-http` source kind's mapping: where in any JSON document an exchange's quotes are, as
 * data (docs/sources.md#the-json-http-mapping). An exchange publishes its own panel's prices
 * through nerkh by describing its document, without writing an adapter:
 *
 *   envelope: { status: "ok" }   # optional: fields the whole document must carry, else it is unreadable
 *   quotes: data.markets         # dot path to an array of objects, or to an object keyed by pair/symbol
 *   key: pair                    # field holding the symbol or pair (omit for an object keyed by it),
 *                                #   or two fields [base, quote]: [base_currency_symbol.en, quote_currency_symbol.en]
 *   pair:                        # how a pair says its quote currency
 *     separator: "-"             #   BTC-USDT, btc_irt: base, separator, quote code; or none: BTCTMN
 *     suffixes: { USDT: usdt, TMN: toman, IRR: rial }   # every quote code and its unit, declared
 *   ask: sell                    # path, inside one quote, of the sell (ask) price, or a book's
 *                                #   lowest: { lowest: asks, price: "0" } (any order; empty: no price)
 *   change: change24h            # optional: 24 h change (in percent once scaled)
 *   time: updated_at             # optional: ISO 8601 with a zone, or epoch seconds or milliseconds
 *   currency: toman              # the unit when no pair says it: usdt | toman | rial
 *   scale: { change: 100 }       # optional: multiply the ask or the change (a fraction → percent)
 *   open_when: { isClosed: false }   # optional: fields a market must carry to be published
 *
 * With a source URL holding `{symbol}` (and `{quote}`), each market is its own document: the
 * mapping then reads one quote at `quotes` (default: the document itself), e.g. `asks.0.0`.
 *
 * A unit is never guessed: `IRT` is toman on some exchanges and rial on Nobitex, so every quote
 * code a pair may carry is declared in `pair.suffixes`, or the one unit in `currency`.
 *
 * A mapping is only ever read: paths are looked up as own properties of parsed JSON (plain data,
 * no prototype, no getters), so nothing in a mapping can run code or reach outside the document.
 * Paths match exactly as written; symbols, pairs and quote codes in the document match in any
 * case. Numbers may be JSON numbers or numeric strings; rial is turned into toman (÷ 10).
 */
import { type Static, Type } from 'typebox';
import { tomanFromRial } from '../domain/pricing.ts';
import type { BodyResult, ParsedQuote } from './body-result.ts';
import { decimalValue } from './decimal.ts';
import type { MarketRequest, QuoteCurrency } from './types.ts';

/** `a.b.0.c`: property names (or array indexes) joined by dots, none empty. */
const DotPath = Type.String({ pattern: '^[^.]+(\\.[^.]+)*$', description: 'dot path, e.g. data.markets' });
const DocumentCurrency = Type.Union([Type.Literal('usdt'), Type.Literal('toman'), Type.Literal('rial')]);
/** Fields a document or a market must carry, each with the exact JSON value it must have. */
const Expected = Type.Record(
  Type.String({ pattern: '^[^.]+(\\.[^.]+)*$', description: 'dot path, e.g. status' }),
  Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]),
  { minProperties: 1, maxProperties: 8 },
);
const Factor = Type.Number({ exclusiveMinimum: 0, maximum: 1e12 });
/**
 * The ask as the lowest price of a list (a book's sellers), whatever order the exchange sends it
 * in: an exchange documenting "asks lowest first" has still been seen otherwise, and a first entry
 * taken on trust would publish the worst ask (docs/sources.md#the-json-http-mapping).
 */
const LowestAsk = Type.Object(
  {
    lowest: DotPath,
    price: Type.Optional(
      Type.Union([DotPath, Type.Integer({ minimum: 0, maximum: 99 })], {
        description: 'the price inside each entry: a dot path, or 0 for ["price", "amount"] pairs',
      }),
    ),
  },
  { additionalProperties: false },
);

export const JsonHttpMappingSchema = Type.Object(
  {
    envelope: Type.Optional(Expected),
    quotes: Type.Optional(DotPath),
    key: Type.Optional(Type.Union([DotPath, Type.Array(DotPath, { minItems: 2, maxItems: 2 })])),
    pair: Type.Optional(
      Type.Object(
        {
          separator: Type.Optional(Type.String({ minLength: 1, maxLength: 5 })),
          suffixes: Type.Optional(
            Type.Record(Type.String({ pattern: '^[A-Za-z0-9]{1,10}$' }), DocumentCurrency, {
              minProperties: 1,
              additionalProperties: false,
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    ask: Type.Union([DotPath, LowestAsk]),
    change: Type.Optional(DotPath),
    time: Type.Optional(DotPath),
    currency: Type.Optional(DocumentCurrency),
    scale: Type.Optional(
      Type.Object(
        { ask: Type.Optional(Factor), change: Type.Optional(Factor) },
        { additionalProperties: false },
      ),
    ),
    open_when: Type.Optional(Expected),
  },
  { additionalProperties: false },
);

export type JsonHttpMapping = Static<typeof JsonHttpMappingSchema>;
/** The unit a document quotes a market in: rial is turned into toman (÷ 10). */
export type DocumentCurrency = Static<typeof DocumentCurrency>;

/** `{symbol}` and `{quote}`: the placeholders a per-market URL may hold. */
const PLACEHOLDER = /\{([^{}]*)\}/g;

/** True when the source URL names one document per market (`…/orderbook/{symbol}_{quote}/`). */
export function isUrlTemplate(url: string): boolean {
  return url.includes('{symbol}');
}

/**
 * What the schema cannot say about a mapping that passed it, as JSON pointers relative to the
 * mapping with a message each (empty: the mapping is usable). `url` is the source's, whose
 * placeholders the mapping must be able to fill.
 */
export function mappingProblems(
  mapping: JsonHttpMapping,
  url?: string,
): { pointer: string; message: string }[] {
  const problems: { pointer: string; message: string }[] = [];
  if (mapping.pair === undefined && mapping.currency === undefined) {
    problems.push({
      pointer: '',
      message: 'needs `currency` (usdt, toman or rial) or a `pair` that says it',
    });
  }
  if (mapping.pair !== undefined && mapping.currency !== undefined) {
    problems.push({
      pointer: '/currency',
      message: 'the pair says the currency; remove `currency` or `pair`',
    });
  }
  if (mapping.pair !== undefined && mapping.pair.suffixes === undefined) {
    problems.push({
      pointer: '/pair',
      message:
        'declare every quote code and its unit in `suffixes`, e.g. { USDT: usdt, TMN: toman, IRR: rial }: nerkh never guesses a unit (IRT is toman on Bitpin and Tabdeal, rial on Nobitex)',
    });
  }
  if (Array.isArray(mapping.key) && mapping.pair?.separator !== undefined) {
    problems.push({
      pointer: '/pair/separator',
      message: 'a key of two fields [base, quote] is not split; remove `separator`',
    });
  }
  if (url !== undefined && isUrlTemplate(url)) {
    const names = [...url.matchAll(PLACEHOLDER)].map((match) => match[1]);
    const unknown = names.filter((name) => name !== 'symbol' && name !== 'quote');
    if (unknown.length > 0) {
      problems.push({
        pointer: '',
        message: `the URL may hold {symbol} and {quote} only, not {${unknown.join('}, {')}}`,
      });
    }
    if (mapping.key !== undefined) {
      problems.push({
        pointer: '/key',
        message: 'with {symbol} in the URL each document is one market; remove `key`',
      });
    }
    if (names.includes('quote') && mapping.pair?.suffixes === undefined) {
      problems.push({
        pointer: '',
        message: 'the URL holds {quote}: declare the quote codes and their units in `pair.suffixes`',
      });
    }
    if (!names.includes('quote') && mapping.currency === undefined) {
      problems.push({
        pointer: '',
        message: 'the URL names no {quote}: say the unit of every document in `currency`',
      });
    }
  }
  return problems;
}

/** A requested market's entry in the document. */
interface Entry {
  /** The currency the document quotes it in, to convert rial. */
  documentCurrency: DocumentCurrency;
  value: unknown;
}

function unreadable(reason: string): BodyResult {
  return { kind: 'unreadable', reason };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value at a dot path, own properties only; undefined when any step is missing. */
function at(value: unknown, path: string | undefined): unknown {
  if (path === undefined) return value;
  let current = value;
  for (const segment of path.split('.')) {
    if (Array.isArray(current)) {
      if (!/^\d+$/.test(segment)) return undefined;
      current = current[Number(segment)];
    } else if (isRecord(current) && Object.hasOwn(current, segment)) {
      current = current[segment];
    } else {
      return undefined;
    }
  }
  return current;
}

/** The first field of `expected` that `value` does not carry with exactly that value, or null. */
function unmet(value: unknown, expected: Readonly<Record<string, unknown>> | undefined): string | null {
  for (const [path, wanted] of Object.entries(expected ?? {})) {
    if (at(value, path) !== wanted) return path;
  }
  return null;
}

/** The declared quote codes, upper case, with their units. */
function quoteCodes(mapping: JsonHttpMapping): Map<string, DocumentCurrency> {
  return new Map(
    Object.entries(mapping.pair?.suffixes ?? {}).map(([code, unit]) => [code.toUpperCase(), unit]),
  );
}

/** A symbol or pair split into the symbol and its document currency; a string says why not. */
type Split = { symbol: string; currency: DocumentCurrency } | string;

function pairSplitter(mapping: JsonHttpMapping): (name: string, quote?: unknown) => Split {
  const { pair, currency } = mapping;
  if (pair === undefined) {
    return (name) => ({ symbol: name.toUpperCase(), currency: currency as DocumentCurrency });
  }
  const suffixes = quoteCodes(mapping);
  if (Array.isArray(mapping.key)) {
    // A key of two fields: the base names the coin, the quote field the currency.
    return (name, quote) => {
      if (typeof quote !== 'string' || quote === '') return 'key-missing';
      const unit = suffixes.get(quote.toUpperCase());
      if (unit === undefined) return 'unknown-quote-currency';
      return { symbol: name.toUpperCase(), currency: unit };
    };
  }
  const { separator } = pair;
  if (separator !== undefined) {
    return (name) => {
      const cut = name.lastIndexOf(separator);
      if (cut <= 0 || cut + separator.length >= name.length) return 'pair-not-split';
      const quote = suffixes.get(name.slice(cut + separator.length).toUpperCase());
      if (quote === undefined) return 'unknown-quote-currency';
      return { symbol: name.slice(0, cut).toUpperCase(), currency: quote };
    };
  }
  // Longest first, so `BTCUSDT` is BTC in USDT even when `T` or `DT` were codes too.
  const bySize = [...suffixes.keys()].sort((a, b) => b.length - a.length);
  return (name) => {
    const upper = name.toUpperCase();
    const code = bySize.find((suffix) => upper.length > suffix.length && upper.endsWith(suffix));
    if (code === undefined) return 'unknown-quote-currency';
    return { symbol: upper.slice(0, -code.length), currency: suffixes.get(code) as DocumentCurrency };
  };
}

/** Epoch ms from an ISO 8601 time with a zone, or epoch seconds/ms as a number or numeric string. */
const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/i;
/** Below this an epoch number is seconds (10¹¹ s is the year 5138; 10¹¹ ms is 1973). */
const SECONDS_BELOW = 1e11;

function epochMs(value: unknown): number | null {
  if (typeof value === 'string' && ISO_WITH_ZONE.test(value)) {
    const ms = Date.parse(value.replace(' ', 'T'));
    return Number.isFinite(ms) ? ms : null;
  }
  const number = decimalValue(value);
  if (number === null || number <= 0) return null;
  return Math.round(number < SECONDS_BELOW ? number * 1000 : number);
}

/** `value × factor` without binary noise: −0.0065 × 100 is −0.65, not −0.6499999999999999. */
function scaled(value: number, factor: number | undefined): number {
  return factor === undefined ? value : Number((value * factor).toPrecision(15));
}

/** The parsed document, or why it is not the exchange's answer at all. */
function documentOf(text: string, mapping: JsonHttpMapping): { document: unknown } | BodyResult {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return unreadable('invalid-json');
  }
  // An exchange that answers 200 with `status: "failed"` has not answered with prices.
  if (unmet(document, mapping.envelope) !== null) return unreadable('envelope-not-ok');
  return { document };
}

/**
 * Reads a document with a mapping: pure, body text → the requested markets' quotes and the reason
 * each requested market that is not quoted was rejected. Entries nobody asked for are ignored.
 */
export function parseJsonHttp(
  text: string,
  mapping: JsonHttpMapping,
  markets: readonly MarketRequest[],
  receivedAt: number,
): BodyResult {
  const parsed = documentOf(text, mapping);
  if (!('document' in parsed)) return parsed;
  const container = at(parsed.document, mapping.quotes);
  const keyPath = Array.isArray(mapping.key) ? mapping.key[0] : mapping.key;
  const quotePath = Array.isArray(mapping.key) ? mapping.key[1] : undefined;
  let items: [name: unknown, value: unknown][];
  if (Array.isArray(container)) {
    if (keyPath === undefined) return unreadable('quotes-are-a-list-but-no-key');
    items = container.map((value) => [at(value, keyPath), value]);
  } else if (isRecord(container)) {
    items = Object.entries(container).map(([name, value]) =>
      keyPath === undefined ? [name, value] : [at(value, keyPath), value],
    );
  } else {
    return unreadable('quotes-missing');
  }

  const split = pairSplitter(mapping);
  const wanted = new Map<string, MarketRequest>();
  for (const request of markets) wanted.set(`${request.market.toUpperCase()} ${request.currency}`, request);
  const found = new Map<MarketRequest, Entry>();
  const rejected: string[] = [];
  for (const [name, value] of items) {
    if (typeof name !== 'string' || name === '') {
      rejected.push('key-missing');
      continue;
    }
    const parts = split(name, quotePath === undefined ? undefined : at(value, quotePath));
    if (typeof parts === 'string') continue; // A market in some other currency: not ours.
    const currency: QuoteCurrency = parts.currency === 'usdt' ? 'usdt' : 'toman';
    const request = wanted.get(`${parts.symbol} ${currency}`);
    if (request === undefined || found.has(request)) continue;
    found.set(request, { documentCurrency: parts.currency, value });
  }

  const quotes: ParsedQuote[] = [];
  for (const request of markets) {
    const entry = found.get(request);
    const result = entry === undefined ? 'market-missing' : entryQuote(request, entry, mapping, receivedAt);
    if (typeof result === 'string') rejected.push(result);
    else quotes.push(result);
  }
  return { kind: 'read', quotes, rejected };
}

/**
 * The quote code and unit a per-market URL asks for: the code declared for the request's
 * currency (for toman, a toman code first, else a rial one), or `currency` when the URL names
 * no quote. Null when the mapping declares none for that currency.
 */
export function marketQuoteCode(
  mapping: JsonHttpMapping,
  currency: QuoteCurrency,
): { code: string; unit: DocumentCurrency } | null {
  if (mapping.currency !== undefined) return { code: '', unit: mapping.currency };
  const declared = Object.entries(mapping.pair?.suffixes ?? {});
  const units: DocumentCurrency[] = currency === 'usdt' ? ['usdt'] : ['toman', 'rial'];
  for (const unit of units) {
    const match = declared.find(([, declaredUnit]) => declaredUnit === unit);
    if (match) return { code: match[0], unit };
  }
  return null;
}

/**
 * How the source names the market of `symbol` (as the document names the coin) in `currency`, and
 * the unit it quotes it in, for `nerkh sources check`: `BTC_IRT` in toman for a per-market URL
 * `…/{symbol}_{quote}/`; `BTC-TMN`, `BTCTMN` or `BTC/IRR` for a document of pairs; `BTC` when the
 * mapping's `currency` is the unit. A document of pairs declaring several codes for the currency
 * (`TMN: toman, IRR: rial`) gives each: whichever the document lists first is read.
 */
export function documentMarkets(
  mapping: JsonHttpMapping,
  url: string,
  symbol: string,
  currency: QuoteCurrency,
): Array<{ name: string; unit: DocumentCurrency }> {
  if (isUrlTemplate(url)) {
    const quote = marketQuoteCode(mapping, currency);
    if (quote === null) return [];
    if (quote.code === '' || !url.includes('{quote}')) return [{ name: symbol, unit: quote.unit }];
    // As the URL spells the pair when the two are side by side (`{symbol}_{quote}`, `{symbol}{quote}`).
    const joined = /\{symbol\}([-_/:]?)\{quote\}/.exec(url);
    return [{ name: `${symbol}${joined ? joined[1] : ' '}${quote.code}`, unit: quote.unit }];
  }
  if (mapping.pair === undefined) {
    return mapping.currency === undefined ? [] : [{ name: symbol, unit: mapping.currency }];
  }
  const units: DocumentCurrency[] = currency === 'usdt' ? ['usdt'] : ['toman', 'rial'];
  const between = Array.isArray(mapping.key) ? '/' : (mapping.pair.separator ?? '');
  return Object.entries(mapping.pair.suffixes ?? {})
    .filter(([, unit]) => units.includes(unit))
    .map(([code, unit]) => ({ name: `${symbol}${between}${code}`, unit }));
}

/** A per-market URL: `{symbol}` and `{quote}` filled in, each URL-encoded. */
export function marketUrl(template: string, symbol: string, quoteCode: string): string {
  return template.replace(PLACEHOLDER, (_whole, name: string) =>
    encodeURIComponent(name === 'symbol' ? symbol : quoteCode),
  );
}

/** Reads the one market a per-market URL answered: its quote sits at `quotes`, or is the document. */
export function parseJsonHttpMarket(
  text: string,
  mapping: JsonHttpMapping,
  request: MarketRequest,
  unit: DocumentCurrency,
  receivedAt: number,
): BodyResult {
  const parsed = documentOf(text, mapping);
  if (!('document' in parsed)) return parsed;
  const value = at(parsed.document, mapping.quotes);
  if (value === undefined || value === null) return unreadable('quotes-missing');
  const result = entryQuote(request, { documentCurrency: unit, value }, mapping, receivedAt);
  return typeof result === 'string'
    ? { kind: 'read', quotes: [], rejected: [result] }
    : { kind: 'read', quotes: [result], rejected: [] };
}

/**
 * The quoted ask of one market: the value at `ask`, or the lowest price of the list `ask.lowest`.
 * A reason string when there is none: an empty book is no price (`book-empty`), and a book with
 * one entry that is not a price is not trusted at all (`ask-not-a-number`).
 */
function quotedAsk(value: unknown, ask: JsonHttpMapping['ask']): number | string {
  if (typeof ask === 'string') {
    const raw = at(value, ask);
    if (raw === undefined || raw === null) return 'ask-missing';
    return decimalValue(raw) ?? 'ask-not-a-number';
  }
  const list = at(value, ask.lowest);
  if (list === undefined || list === null) return 'ask-missing';
  if (!Array.isArray(list)) return 'book-not-a-list';
  if (list.length === 0) return 'book-empty';
  const pricePath = ask.price === undefined ? undefined : String(ask.price);
  let lowest = Number.POSITIVE_INFINITY;
  for (const item of list) {
    const price = decimalValue(at(item, pricePath));
    if (price === null) return 'ask-not-a-number';
    if (price < lowest) lowest = price;
  }
  return lowest;
}

function entryQuote(
  request: MarketRequest,
  entry: Entry,
  mapping: JsonHttpMapping,
  receivedAt: number,
): ParsedQuote | string {
  // A closed or suspended market's last ask is not a price anyone can buy at.
  if (unmet(entry.value, mapping.open_when) !== null) return 'market-closed';
  const quoted = quotedAsk(entry.value, mapping.ask);
  if (typeof quoted === 'string') return quoted;
  const price = scaled(quoted, mapping.scale?.ask);
  const ask = entry.documentCurrency === 'rial' ? tomanFromRial(price) : price;
  if (ask <= 0) return 'ask-not-positive';
  let changePct: number | null = null;
  if (mapping.change !== undefined) {
    const change = at(entry.value, mapping.change);
    if (change !== undefined && change !== null) {
      const raw = decimalValue(change);
      if (raw === null) return 'invalid-change';
      changePct = scaled(raw, mapping.scale?.change);
    }
  }
  let tickTime = receivedAt;
  if (mapping.time !== undefined) {
    const time = at(entry.value, mapping.time);
    if (time === undefined || time === null) return 'time-missing';
    const ms = epochMs(time);
    if (ms === null) return 'invalid-time';
    tickTime = ms;
  }
  return { symbol: request.symbol, currency: request.currency, ask, changePct, tickTime };
}
