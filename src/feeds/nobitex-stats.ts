/**
 * Validation of a Nobitex `GET /market/stats` body (https://apidocs.nobitex.ir, «آمار بازار»):
 * `{"status":"ok","stats":{"btc-rls":{…},"btc-usdt":{…}}}`, every value a decimal string.
 * `bestSell`, the lowest sell order — what a buyer pays, the side nerkh publishes — is the ask;
 * in `-rls` markets it is rial and becomes toman (÷ 10), in `-usdt` markets it is tether.
 * `dayChange` is the 24 h change in percent. Every field nerkh uses is checked; anything else is
 * ignored.
 */
import { tomanFromRial } from '../domain/pricing.ts';
import type { BodyResult, ParsedQuote } from './body-result.ts';
import type { MarketRequest } from './types.ts';

/** Nobitex's destination currency of a quote currency: toman is quoted in rial markets. */
export type NobitexDst = 'rls' | 'usdt';

export function nobitexDst(currency: MarketRequest['currency']): NobitexDst {
  return currency === 'toman' ? 'rls' : 'usdt';
}

/** Nobitex writes decimals as plain digits with an optional fraction. */
const DECIMAL = /^-?\d+(?:\.\d+)?$/;

function unreadable(reason: string): BodyResult {
  return { kind: 'unreadable', reason };
}

/** A quote, or the reason the market's stats are not one. */
function marketQuote(
  request: MarketRequest,
  stats: unknown,
  dst: NobitexDst,
  receivedAt: number,
): ParsedQuote | string {
  if (typeof stats !== 'object' || stats === null) return 'market-missing';
  const { isClosed, bestSell, dayChange } = stats as Record<string, unknown>;
  if (isClosed === true) return 'market-closed';
  if (bestSell === undefined || bestSell === null) return 'best-sell-missing';
  if (typeof bestSell !== 'string') return 'best-sell-not-a-string';
  if (!DECIMAL.test(bestSell)) return 'best-sell-not-a-number';
  const price = Number(bestSell);
  if (!Number.isFinite(price)) return 'best-sell-not-a-number';
  const ask = dst === 'rls' ? tomanFromRial(price) : price;
  if (ask <= 0) return 'best-sell-not-positive';
  let changePct: number | null = null;
  if (dayChange !== undefined && dayChange !== null) {
    if (typeof dayChange !== 'string' || !DECIMAL.test(dayChange)) return 'invalid-day-change';
    changePct = Number(dayChange);
  }
  return { symbol: request.symbol, currency: request.currency, ask, changePct, tickTime: receivedAt };
}

/**
 * The quotes of `markets` (all quoted in `dst`) in a `/market/stats` body. Nobitex stats carry no
 * time of their own, so each quote's tick time is `receivedAt`.
 */
export function parseNobitexStats(
  text: string,
  markets: readonly MarketRequest[],
  dst: NobitexDst,
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
    const result = marketQuote(
      request,
      (stats as Record<string, unknown>)[`${request.market}-${dst}`],
      dst,
      receivedAt,
    );
    if (typeof result === 'string') rejected.push(result);
    else quotes.push(result);
  }
  return { kind: 'read', quotes, rejected };
}
