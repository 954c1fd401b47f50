/**
 * The `json-http` source kind's mapping: where in any JSON document an exchange's quotes are, as
 * data. An exchange publishes its own panel's prices through nerkh by describing its document,
 * without writing an adapter:
 *
 *   quotes: data.markets   # dot path to an array of objects, or to an object keyed by pair/symbol
 *   key: pair              # field holding the symbol or pair (omit for an object keyed by it)
 *   pair:                  # how a pair splits (omit when `key` holds a bare symbol)
 *     separator: "-"       #   BTC-USDT, btc_irt: base, separator, quote currency; or none:
 *     suffixes: { USDT: usdt, TMN: toman, IRT: toman, IRR: rial, RLS: rial }   # BTCTMN
 *   ask: sell              # path, inside one quote, of the sell (ask) price
 *   change: change24h      # optional: 24 h change in percent
 *   time: updated_at       # optional: ISO 8601 with a zone, or epoch seconds or milliseconds
 *   currency: toman        # the quote currency when no pair says it: usdt | toman | rial
 *
 * A mapping is only ever read: paths are looked up as own properties of parsed JSON (plain data,
 * no prototype, no getters), so nothing in a mapping can run code or reach outside the document.
 * Names match case-insensitively; numbers may be JSON numbers or numeric strings; rial is turned
 * into toman (÷ 10).
 */
import { type Static, Type } from 'typebox';
import { tomanFromRial } from '../domain/pricing.ts';
import type { BodyResult, ParsedQuote } from './body-result.ts';
import { decimalValue } from './decimal.ts';
import type { MarketRequest, QuoteCurrency } from './types.ts';

/** `a.b.0.c`: property names (or array indexes) joined by dots, none empty. */
const DotPath = Type.String({ pattern: '^[^.]+(\\.[^.]+)*$', description: 'dot path, e.g. data.markets' });
const DocumentCurrency = Type.Union([Type.Literal('usdt'), Type.Literal('toman'), Type.Literal('rial')]);

export const JsonHttpMappingSchema = Type.Object(
  {
    quotes: Type.Optional(DotPath),
    key: Type.Optional(DotPath),
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
    ask: DotPath,
    change: Type.Optional(DotPath),
    time: Type.Optional(DotPath),
    currency: Type.Optional(DocumentCurrency),
  },
  { additionalProperties: false },
);

export type JsonHttpMapping = Static<typeof JsonHttpMappingSchema>;
type DocumentCurrency = Static<typeof DocumentCurrency>;

/** Quote codes understood when a pair mapping lists no `suffixes` of its own. */
const DEFAULT_SUFFIXES: Readonly<Record<string, DocumentCurrency>> = {
  USDT: 'usdt',
  TMN: 'toman',
  IRT: 'toman',
  TOMAN: 'toman',
  IRR: 'rial',
  RLS: 'rial',
  RIAL: 'rial',
};

/**
 * What the schema cannot say about a mapping that passed it, as JSON pointers relative to the
 * mapping with a message each (empty: the mapping is usable).
 */
export function mappingProblems(mapping: JsonHttpMapping): { pointer: string; message: string }[] {
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

/** A symbol or pair split into the symbol and its document currency; a string says why not. */
type Split = { symbol: string; currency: DocumentCurrency } | string;

function pairSplitter(mapping: JsonHttpMapping): (name: string) => Split {
  const { pair, currency } = mapping;
  if (pair === undefined) {
    return (name) => ({ symbol: name.toUpperCase(), currency: currency as DocumentCurrency });
  }
  const suffixes = new Map(
    Object.entries(pair.suffixes ?? DEFAULT_SUFFIXES).map(([code, value]) => [code.toUpperCase(), value]),
  );
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
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return unreadable('invalid-json');
  }
  const container = at(document, mapping.quotes);
  let items: [name: unknown, value: unknown][];
  if (Array.isArray(container)) {
    if (mapping.key === undefined) return unreadable('quotes-are-a-list-but-no-key');
    items = container.map((value) => [at(value, mapping.key), value]);
  } else if (isRecord(container)) {
    items = Object.entries(container).map(([name, value]) =>
      mapping.key === undefined ? [name, value] : [at(value, mapping.key), value],
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
    const parts = split(name);
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

function entryQuote(
  request: MarketRequest,
  entry: Entry,
  mapping: JsonHttpMapping,
  receivedAt: number,
): ParsedQuote | string {
  const rawAsk = at(entry.value, mapping.ask);
  if (rawAsk === undefined || rawAsk === null) return 'ask-missing';
  const price = decimalValue(rawAsk);
  if (price === null) return 'ask-not-a-number';
  const ask = entry.documentCurrency === 'rial' ? tomanFromRial(price) : price;
  if (ask <= 0) return 'ask-not-positive';
  let changePct: number | null = null;
  if (mapping.change !== undefined) {
    const change = at(entry.value, mapping.change);
    if (change !== undefined && change !== null) {
      changePct = decimalValue(change);
      if (changePct === null) return 'invalid-change';
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
