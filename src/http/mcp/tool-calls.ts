import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { RateRow } from '../../domain/rates.ts';
import { maxSymbols, symbolPattern } from '../rates/symbols-query.ts';
import { healthToolName, ratesToolName } from './tools.ts';

/** The app's own `inject`: a request handled in-process by the real routes, hooks and handlers. */
export type Inject = (options: InjectOptions) => Promise<LightMyRequestResponse>;

/** What of the `/mcp` request a tool call carries on to the route it asks. */
export interface CallerContext {
  /** `X-API-Key` of the `/mcp` request, as sent. */
  apiKey: string | undefined;
  /** The client address Fastify resolved for the `/mcp` request (trusted proxies applied). */
  ip: string;
  /** The `/mcp` request's id: the route's access line carries the same. */
  requestId: string;
  nowMs: number;
}

const symbolShape = new RegExp(symbolPattern);

/**
 * What the tools tell the model, in this service's own words; the data and any problem document
 * follow as data (`structuredContent`, or a second text item holding the problem as JSON).
 */
const rules =
  'Sell side only: what a user pays to buy each coin; never derive a buy rate, spread or cost from it. ' +
  'sell_irt and usdt_irt are in toman, not rial (1 toman = 10 rial). ' +
  'Judge each row by its own as_of, not by updated_at (when the list was committed). ' +
  'Each row names the source that priced it and, when one of its prices was converted through usdt_irt, the source of that tether rate; say which when you report a rate. ' +
  'Rates are informational; the final rate of an order is fixed in the exchange user panel.';

function toolError(text: string, problemJson?: string): CallToolResult {
  const content: CallToolResult['content'] = [{ type: 'text', text }];
  if (problemJson !== undefined) content.push({ type: 'text', text: problemJson });
  return { isError: true, content };
}

/** `symbol` or `symbols` as the route's query, or the tool error's text for arguments the route would refuse. */
function ratesQuery(args: Record<string, unknown>): string {
  const { symbol, symbols } = args;
  const wellFormed = (value: unknown): value is string =>
    typeof value === 'string' && symbolShape.test(value);
  if (symbol !== undefined && symbols !== undefined)
    throw new ArgumentError('Give symbol or symbols, not both.');
  if (symbol !== undefined) {
    if (!wellFormed(symbol)) {
      throw new ArgumentError('symbol must be 1 to 20 ASCII letters or digits, for example BTC.');
    }
    return `?symbol=${symbol}`;
  }
  if (symbols === undefined) return '';
  if (!Array.isArray(symbols) || symbols.length === 0 || !symbols.every(wellFormed)) {
    throw new ArgumentError(
      'symbols must be a list of 1 to 20 ASCII letters or digits each, for example ["BTC","ETH"].',
    );
  }
  if (new Set(symbols.map((item) => item.toUpperCase())).size > maxSymbols) {
    throw new ArgumentError(`symbols may name at most ${maxSymbols} distinct currencies; omit it for all.`);
  }
  return `?symbols=${symbols.join(',')}`;
}

class ArgumentError extends Error {}

function number(value: unknown, unit: string): string {
  return typeof value === 'number' && Number.isFinite(value) ? `${value} ${unit}` : `not available (${unit})`;
}

/** How old a row is, in the unit a reader would use. */
function ageText(ageMs: number): string {
  if (!Number.isFinite(ageMs)) return '';
  const minutes = Math.max(0, Math.round(ageMs / 60_000));
  if (minutes < 120) return `, ${minutes} min old`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `, ${hours} h old` : `, ${Math.round(hours / 24)} days old`;
}

interface RatesBody {
  usdt_irt: number | null;
  updated_at: string;
  rates: Pick<RateRow, 'symbol' | 'sell_usdt' | 'sell_irt' | 'as_of' | 'source' | 'tether_source'>[];
}

/** Which sources a row's prices come from (docs/sources.md "What is published"). */
function sourcesText(row: Pick<RateRow, 'source' | 'tether_source'>): string {
  const from = `; from ${row.source}`;
  return row.tether_source === null
    ? from
    : `${from}, converted at the tether rate from ${row.tether_source}`;
}

function ratesReply(body: RatesBody, nowMs: number): CallToolResult {
  const lines = body.rates.map((row) => {
    const age = ageText(nowMs - Date.parse(row.as_of));
    return `${row.symbol}: ${number(row.sell_usdt, 'USDT')}, ${number(row.sell_irt, 'toman')}; as_of ${row.as_of}${age}${sourcesText(row)}`;
  });
  const text = [
    rules,
    `Tether sells at ${number(body.usdt_irt, 'toman')}. List committed at ${body.updated_at}; ${body.rates.length} row${body.rates.length === 1 ? '' : 's'}.`,
    ...lines,
  ].join('\n');
  return {
    content: [{ type: 'text', text }],
    structuredContent: body as unknown as Record<string, unknown>,
  };
}

function seconds(value: number): string {
  return `${value} second${value === 1 ? '' : 's'}`;
}

/** A problem the route answered, as a tool error: a sentence saying what to do, then the problem itself. */
function problemReply(response: LightMyRequestResponse, nowMs: number): CallToolResult {
  const problem = response.json() as { code: string; 'unknown-symbols'?: string[] };
  const retryAfter = Number(response.headers['retry-after'] ?? Number.NaN);
  const retry = Number.isInteger(retryAfter)
    ? ` Retry after ${seconds(retryAfter)} (at ${new Date(nowMs + retryAfter * 1000).toISOString()}), not sooner.`
    : '';
  // The problem document, with the Retry-After its headers carried, is the data a program acts on.
  const document = JSON.stringify(
    Number.isInteger(retryAfter) ? { ...problem, retry_after: retryAfter } : problem,
  );
  const sentence = (() => {
    switch (problem.code) {
      case 'missing-api-key':
        return 'nerkh needs an API key (missing-api-key): send it in the X-API-Key header of every request to /mcp. Keys are issued by hand: a person requests one on the contact page. Do not guess or invent a key.';
      case 'invalid-api-key':
        return 'nerkh refused the API key (invalid-api-key): it is wrong, revoked or expired. Do not retry with the same key; a person can request a new one on the contact page.';
      case 'rate-limited':
      case 'too-many-failed-keys':
        return `nerkh refused the request: rate limit (${problem.code}).${retry}`;
      case 'unknown-symbol': {
        const unknown = problem['unknown-symbols'] ?? [];
        const which =
          unknown.length === 0
            ? 'That symbol is'
            : `${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'}`;
        return `${which} not listed by nerkh. Call get_sell_rates without a symbol to see every listed currency.`;
      }
      case 'service-unavailable':
        return `nerkh has no rates yet (it has just started).${retry} get_service_health shows the state of the data.`;
      default:
        return `nerkh answered HTTP ${response.statusCode} (${problem.code}).`;
    }
  })();
  return toolError(sentence, document);
}

/**
 * Answers a `tools/call` by asking the real route in-process (`inject`): the key check, the rate
 * limit (one request per call that returns rates), the body, the access line and the metrics are
 * exactly the route's, and the service never calls its own public address. The request carries
 * the `/mcp` request's client address (so the failed-key pause applies to the caller, not to this
 * process) and its request id (so the two access lines are found together).
 */
export async function callTool(
  name: string,
  args: Record<string, unknown>,
  inject: Inject,
  caller: CallerContext,
): Promise<CallToolResult | null> {
  if (name !== ratesToolName && name !== healthToolName) return null;
  let url = '/v1/health';
  if (name === ratesToolName) {
    try {
      url = `/v1/rates${ratesQuery(args)}`;
    } catch (error) {
      if (error instanceof ArgumentError) return toolError(error.message);
      throw error;
    }
  }
  const headers: Record<string, string> = { 'x-request-id': caller.requestId, 'accept-encoding': 'identity' };
  if (name === ratesToolName && caller.apiKey !== undefined) headers['x-api-key'] = caller.apiKey;
  const response = await inject({ method: 'GET', url, headers, remoteAddress: caller.ip });
  if (name === healthToolName && (response.statusCode === 200 || response.statusCode === 503)) {
    return healthReply(response.json());
  }
  if (response.statusCode === 200) return ratesReply(response.json() as RatesBody, caller.nowMs);
  return problemReply(response, caller.nowMs);
}

function healthReply(data: { status: string; age_seconds?: number; updated_at?: string }): CallToolResult {
  const meaning =
    {
      pass: 'fresh data, every source connected',
      warn: 'rates are still served but a source has a problem or the data is getting old; say so when you use them',
      fail: 'do not rely on the rates now',
    }[data.status] ?? 'unrecognised status';
  const age = typeof data.age_seconds === 'number' ? `${data.age_seconds} s old` : 'no snapshot yet';
  const text = `nerkh health: ${data.status} (${meaning}). Snapshot ${age}, committed at ${data.updated_at ?? 'never'}. Judge each rate by its own as_of.`;
  return { content: [{ type: 'text', text }], structuredContent: data as unknown as Record<string, unknown> };
}
