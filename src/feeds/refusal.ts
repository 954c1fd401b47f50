/**
 * When a source refuses us, and how to say why. HTTP 451 (RFC 7725, "Unavailable For Legal
 * Reasons": Binance's answer to servers in restricted locations) and 403 (an address or key
 * banned) will not change by retrying soon: coins it serves fail over at once.
 */

import { STATUS_CODES } from 'node:http';

/** Longest part of an error body quoted in a state detail. */
const MAX_DETAIL_CHARS = 200;

export function isRefusal(status: number): boolean {
  return status === 451 || status === 403;
}

/** The message an error body carries (`msg`, `message`, `error`, `detail`), else its text. */
function errorMessage(text: string): string {
  try {
    const body: unknown = JSON.parse(text);
    if (typeof body === 'object' && body !== null) {
      const record = body as Record<string, unknown>;
      for (const field of ['msg', 'message', 'error', 'detail']) {
        const value = record[field];
        if (typeof value === 'string' && value.trim() !== '') return value.trim().slice(0, MAX_DETAIL_CHARS);
      }
    }
  } catch {
    // Not JSON: quote the text itself.
  }
  return text.replace(/\s+/g, ' ').trim().slice(0, MAX_DETAIL_CHARS);
}

/**
 * `HTTP 451: Service unavailable from a restricted location …`; for an empty body (Binance's 451 to
 * a WebSocket upgrade has none, docs/sources.md, "Binance") the status's reason phrase:
 * `HTTP 451 Unavailable For Legal Reasons`.
 */
export function httpErrorDetail(status: number, text: string): string {
  const message = errorMessage(text);
  if (message !== '') return `HTTP ${status}: ${message}`;
  const phrase = STATUS_CODES[status];
  return phrase ? `HTTP ${status} ${phrase}` : `HTTP ${status}`;
}
