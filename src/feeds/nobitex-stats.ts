/**
 * Validation of a Nobitex `GET /market/stats` body (docs/sources.md, "Nobitex"):
 * `{"status":"ok","stats":{"btc-rls":{…},"btc-usdt":{…}},"global":{…}}`, every value a decimal
 * string. `bestSell`, the lowest sell order — what a buyer pays, the side nerkh publishes — is the
 * ask; in `-rls` markets it is rial and becomes toman (÷ 10), in `-usdt` markets it is tether.
 * `dayChange` is the 24 h change in percent. Every field nerkh uses is checked; anything else
 * (the deprecated `global` block included) is ignored.
 *
 * Nobitex is recorded sending placeholders (docs/sources.md, "Nobitex"): `"latest": "0E-10"`,
 * `"dayClose": "0E-10"` and a `"dayChange": "-100.00"` computed from that zero close. A zero
 * `bestSell` is never published (rejected, counted); a change that cannot be real (from a zero
 * close, or −100 % or less) is published as null and counted. A closed market (`isClosed: true`)
 * is not a price a user can buy at: rejected, counted, so the coin keeps its last price or fails
 * over.
 */
import { tomanFromRial } from '../domain/pricing.ts';
import type { BodyResult, ParsedQuote } from './body-result.ts';
import { decimalValue } from './decimal.ts';
import { NOBITEX_RENAMED } from './nobitex-markets.ts';
import type { MarketRequest } from './types.ts';

/** Nobitex's destination currency of a quote currency: toman is quoted in rial markets. */
export type NobitexDst = 'rls' | 'usdt';

export function nobitexDst(currency: MarketRequest['currency']): NobitexDst {
  return currency === 'toman' ? 'rls' : 'usdt';
}

/** The key of a market in `stats`: `btc-rls`, `btc-usdt`. */
export function nobitexMarketKey(request: MarketRequest): string {
  return `${request.market}-${nobitexDst(request.currency)}`;
}

function unreadable(reason: string): BodyResult {
  return { kind: 'unreadable', reason };
}

/** A quote and the placeholders it had, or the reason the market's stats are not one. */
function marketQuote(
  request: MarketRequest,
  stats: unknown,
  receivedAt: number,
): { quote: ParsedQuote; placeholders: string[] } | string {
  if (typeof stats !== 'object' || stats === null) return 'market-missing';
  const { isClosed, bestSell, dayChange, dayClose, latest } = stats as Record<string, unknown>;
  if (isClosed === true) return 'market-closed';
  if (bestSell === undefined || bestSell === null) return 'best-sell-missing';
  if (typeof bestSell !== 'string') return 'best-sell-not-a-string';
  const price = decimalValue(bestSell);
  if (price === null) return 'best-sell-not-a-number';
  // "0", "0E-10": no sell order, not a price anyone can pay.
  if (price <= 0) return 'best-sell-not-positive';
  const ask = request.currency === 'toman' ? tomanFromRial(price) : price;
  const placeholders: string[] = [];
  let changePct: number | null = null;
  if (dayChange !== undefined && dayChange !== null) {
    const change = typeof dayChange === 'string' ? decimalValue(dayChange) : null;
    if (change === null) return 'invalid-day-change';
    const zero = (value: unknown) => typeof value === 'string' && decimalValue(value) === 0;
    // A change from a zero close (or last trade) is the placeholder's arithmetic, not a market's
    // move; −100 % would mean a price of zero, which a quoted market cannot have.
    if (zero(dayClose) || zero(latest) || change <= -100) placeholders.push('day-change-placeholder');
    else changePct = change;
  }
  return {
    quote: { symbol: request.symbol, currency: request.currency, ask, changePct, tickTime: receivedAt },
    placeholders,
  };
}

/**
 * The keys a market is read from, in the order tried: its code (`btc-rls`), then the newer code of
 * the same bundle (`shib-rls`, then `1k_shib-rls`). `nerkh sources check` prints the same list.
 */
export function nobitexMarketKeys(request: MarketRequest): string[] {
  const renamed = NOBITEX_RENAMED[request.market];
  const keys = [nobitexMarketKey(request)];
  if (renamed !== undefined) keys.push(nobitexMarketKey({ ...request, market: renamed }));
  return keys;
}

/** A market's stats under the first of its keys the answer carries. */
function marketStats(stats: Record<string, unknown>, request: MarketRequest): unknown {
  for (const key of nobitexMarketKeys(request)) {
    if (stats[key] !== undefined) return stats[key];
  }
  return undefined;
}

/**
 * The quotes of `markets` in a `/market/stats` body; each market is read from `stats[<market>-rls]`
 * (toman) or `stats[<market>-usdt]` (tether), so one body may answer both. Nobitex stats carry no
 * time of their own, so each quote's tick time is `receivedAt`.
 */
export function parseNobitexStats(
  text: string,
  markets: readonly MarketRequest[],
  receivedAt: number,
): BodyResult {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return unreadable('invalid-json');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return unreadable('not-an-object');
  const { status, stats } = body as Record<string, unknown>;
  if (status !== 'ok') return unreadable('status-not-ok');
  if (typeof stats !== 'object' || stats === null || Array.isArray(stats)) return unreadable('stats-missing');
  const quotes: ParsedQuote[] = [];
  const rejected: string[] = [];
  for (const request of markets) {
    const result = marketQuote(request, marketStats(stats as Record<string, unknown>, request), receivedAt);
    if (typeof result === 'string') {
      rejected.push(result);
    } else {
      quotes.push(result.quote);
      rejected.push(...result.placeholders);
    }
  }
  return { kind: 'read', quotes, rejected };
}

/** Longest `backOff` honoured: Nobitex's own ban lasts minutes (docs/sources.md, "Nobitex"). */
const MAX_BACK_OFF_SECONDS = 3_600;

/**
 * Milliseconds a Nobitex error body asks to wait before the next request to the same address:
 * `{"status":"failed","code":"TooManyRequests","backOff":12,…}` (seconds). Null when the body
 * carries no usable `backOff`.
 */
export function nobitexBackOffMs(text: string): number | null {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof body !== 'object' || body === null) return null;
  const seconds = decimalValue((body as Record<string, unknown>).backOff);
  if (seconds === null || seconds <= 0) return null;
  return Math.ceil(Math.min(seconds, MAX_BACK_OFF_SECONDS) * 1000);
}
