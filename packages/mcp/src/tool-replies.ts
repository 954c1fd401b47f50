import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  type HealthResponse,
  NerkhBudgetError,
  NerkhProblemError,
  NerkhRequestError,
  type RatesResponse,
} from '@nerkh/client';

/**
 * What the tools tell the model. Every sentence here is this package's own: the service's bytes
 * (problem `detail`, `disclaimer`, names) reach the model only as data in `structuredContent`,
 * never as text it could take for instructions. Symbols and numbers are shown only after checks
 * of their shape.
 */
const rules =
  'Sell side only: what a user pays to buy each coin; never derive a buy rate, spread or cost from it. ' +
  'sell_irt and usdt_irt are in toman, not rial (1 toman = 10 rial). ' +
  'Judge each row by its own as_of, not by updated_at (when the list was committed). ' +
  'Rates are informational; the final rate of an order is fixed in the exchange user panel.';

const symbolShape = /^[A-Za-z0-9]{1,20}$/;
const isoShape = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

function number(value: number | null, unit: string): string {
  return typeof value === 'number' && Number.isFinite(value) ? `${value} ${unit}` : `not available (${unit})`;
}

function time(value: unknown): string {
  return typeof value === 'string' && isoShape.test(value) ? value : 'unknown';
}

/** How old a row is, in the unit a reader would use. */
function ageText(ageMs: number): string {
  if (!Number.isFinite(ageMs)) return '';
  const minutes = Math.max(0, Math.round(ageMs / 60_000));
  if (minutes < 120) return `, ${minutes} min old`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `, ${hours} h old` : `, ${Math.round(hours / 24)} days old`;
}

export function ratesReply(data: RatesResponse, nowMs: number): CallToolResult {
  const lines = data.rates
    .filter((row) => symbolShape.test(row.symbol))
    .slice(0, 50)
    .map((row) => {
      const age = ageText(nowMs - Date.parse(row.as_of));
      return `${row.symbol}: ${number(row.sell_usdt, 'USDT')}, ${number(row.sell_irt, 'toman')}; as_of ${time(row.as_of)}${age}`;
    });
  const more =
    data.rates.length > lines.length
      ? `\n(${data.rates.length - lines.length} more rows in structuredContent)`
      : '';
  const text = [
    rules,
    `Tether sells at ${number(data.usdt_irt, 'toman')}. List committed at ${time(data.updated_at)}; ${data.rates.length} row${data.rates.length === 1 ? '' : 's'}.`,
    ...lines,
  ].join('\n');
  return {
    content: [{ type: 'text', text: `${text}${more}` }],
    structuredContent: data as unknown as Record<string, unknown>,
  };
}

export function healthReply(data: HealthResponse): CallToolResult {
  const status = ['pass', 'warn', 'fail'].includes(data.status) ? data.status : 'unknown';
  const meaning = {
    pass: 'fresh data, every source connected',
    warn: 'rates are still served but a source has a problem or the data is getting old; say so when you use them',
    fail: 'do not rely on the rates now',
    unknown: 'unrecognised status',
  }[status];
  const age = typeof data.age_seconds === 'number' ? `${data.age_seconds} s old` : 'no snapshot yet';
  const text = `nerkh health: ${status} (${meaning}). Snapshot ${age}, committed at ${time(data.updated_at)}; next refresh due ${time(data.next_refresh_at)}.`;
  return { content: [{ type: 'text', text }], structuredContent: data as unknown as Record<string, unknown> };
}

function toolError(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

export function missingKeyReply(contactUrl: string): CallToolResult {
  return toolError(
    `No nerkh API key is configured for this MCP server. Keys are issued by hand: a person requests one at ${contactUrl}, then sets it as NERKH_API_KEY in this server's environment (the MCP host configuration). Do not guess or invent a key.`,
  );
}

function seconds(value: number): string {
  const wait = Math.max(1, Math.ceil(value));
  return `${wait} second${wait === 1 ? '' : 's'}`;
}

/** A failed call as a tool error the model can act on. */
export function errorReply(
  error: unknown,
  context: { contactUrl: string; symbol?: string; symbols?: string[]; nowMs: number },
): CallToolResult {
  const retryAt = (wait: number) =>
    new Date(context.nowMs + Math.max(1, Math.ceil(wait)) * 1000).toISOString();
  if (error instanceof NerkhBudgetError) {
    return toolError(
      `The key's request quota is used up (counted by this server before asking nerkh). Retry after ${seconds(error.retryAfter)} (at ${retryAt(error.retryAfter)}), not sooner.`,
    );
  }
  if (error instanceof NerkhProblemError) {
    const wait = error.retryAfter ?? 60;
    switch (error.code) {
      case 'rate-limited':
      case 'too-many-failed-keys':
        return toolError(
          `nerkh refused the request: rate limit (${error.code}). Retry after ${seconds(wait)} (at ${retryAt(wait)}), not sooner.`,
        );
      case 'missing-api-key':
      case 'invalid-api-key':
        return toolError(
          `nerkh refused the API key (${error.code}): it is missing, wrong, revoked or expired. Do not retry with the same key. A person can request a key at ${context.contactUrl} and set it as NERKH_API_KEY in this server's environment.`,
        );
      case 'unknown-symbol': {
        // The symbols named are the ones asked for, never the service's bytes.
        const asked = (context.symbols ?? (context.symbol === undefined ? [] : [context.symbol]))
          .filter((symbol) => symbolShape.test(symbol))
          .map((symbol) => symbol.toUpperCase());
        const unknown = error.problem['unknown-symbols'];
        const named = Array.isArray(unknown)
          ? [...new Set(asked)].filter((symbol) => unknown.includes(symbol))
          : [...new Set(asked)];
        const which =
          named.length === 0
            ? 'That symbol is'
            : named.length === 1
              ? `${named[0]} is`
              : `${named.join(', ')} are`;
        return toolError(
          `${which} not listed by nerkh. Call get_sell_rates without a symbol to see every listed currency.`,
        );
      }
      case 'invalid-symbol':
        return toolError(
          context.symbols === undefined
            ? 'symbol must be 1 to 20 ASCII letters or digits, for example BTC.'
            : 'symbols must be a list of 1 to 20 ASCII letters or digits each, for example ["BTC","ETH"].',
        );
      case 'service-unavailable':
        return toolError(
          `nerkh has no rates yet (it has just started). Retry after ${seconds(wait)}; get_service_health shows the state of the data.`,
        );
      default:
        return toolError(
          `nerkh answered HTTP ${error.status} (${/^[a-z-]{1,40}$/.test(error.code) ? error.code : 'error'}).`,
        );
    }
  }
  if (error instanceof NerkhRequestError) {
    return toolError(
      error.code === 'timeout'
        ? 'nerkh did not answer in time. Try again later.'
        : `nerkh could not be reached or gave an unusable answer (${error.code}). Try again later.`,
    );
  }
  throw error;
}
