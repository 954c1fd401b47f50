/**
 * Validation of Wallex's order book of one market, `GET /v1/depth?symbol=BTCTMN`
 * (docs/sources.md, "Wallex"): `{"success":true,"message":…,"result":{"ask":[{"price","quantity",
 * "sum"},…],"bid":[…]}}`. `result.ask` are the sell orders: the lowest price among them is what a
 * buyer pays, the ask nerkh publishes. The order of the list is not documented, so the lowest is
 * searched for rather than taken from the front. Prices are numbers or numeric strings; `TMN`
 * markets are in toman already (no ÷ 10). The book carries no 24 h change: it is null.
 */
import type { BodyResult } from './body-result.ts';
import { decimalValue } from './decimal.ts';
import type { MarketRequest } from './types.ts';

/**
 * The lowest price of the sell orders that have a quantity, or why there is none: an entry that is
 * not a price is a reason of its own; no order at all is `no-sell-orders`.
 */
export function lowestAsk(entries: unknown): number | string {
  if (!Array.isArray(entries)) return 'asks-missing';
  let lowest: number | null = null;
  for (const entry of entries) {
    if (typeof entry !== 'object' || entry === null) return 'ask-entry-not-an-object';
    const { price, quantity } = entry as Record<string, unknown>;
    const value = decimalValue(price);
    if (value === null) return 'ask-not-a-number';
    if (value <= 0) return 'ask-not-positive';
    // An order with nothing left to sell is not one a buyer can fill.
    const amount = quantity === undefined ? null : decimalValue(quantity);
    if (amount !== null && amount <= 0) continue;
    if (lowest === null || value < lowest) lowest = value;
  }
  return lowest ?? 'no-sell-orders';
}

/** The quote of `market` in its `/v1/depth` body; the tick time is `receivedAt`. */
export function parseWallexDepth(text: string, market: MarketRequest, receivedAt: number): BodyResult {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { kind: 'unreadable', reason: 'invalid-json' };
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { kind: 'unreadable', reason: 'not-an-object' };
  }
  const { success, result } = body as Record<string, unknown>;
  if (success !== true) return { kind: 'unreadable', reason: 'not-successful' };
  if (typeof result !== 'object' || result === null) return { kind: 'unreadable', reason: 'result-missing' };
  const ask = lowestAsk((result as Record<string, unknown>).ask);
  if (typeof ask === 'string') return { kind: 'read', quotes: [], rejected: [ask] };
  return {
    kind: 'read',
    quotes: [
      { symbol: market.symbol, currency: market.currency, ask, changePct: null, tickTime: receivedAt },
    ],
    rejected: [],
  };
}
