/**
 * Validation of Wallex's public market list, `GET /v1/markets` (https://api-docs.wallex.ir,
 * "List of market and status"): `{"success":true,"result":{"symbols":{"BTCTMN":{"symbol",
 * "baseAsset","quoteAsset":"TMN","stats":{"bidPrice","askPrice","24h_ch",…}}}}}`.
 * `askPrice` — the lowest sell order, what a buyer pays — is the ask. `TMN` markets are quoted in
 * toman already (no ÷ 10), `USDT` markets in tether. `24h_ch` is the 24 h change in percent, a
 * number or a numeric string. Every field nerkh uses is checked; anything else is ignored.
 */
import type { BodyResult, ParsedQuote } from './body-result.ts';
import { decimalValue } from './decimal.ts';
import type { MarketRequest, QuoteCurrency } from './types.ts';

/** Wallex's quote asset of each quote currency. */
const QUOTE_ASSET: Readonly<Record<QuoteCurrency, string>> = { toman: 'TMN', usdt: 'USDT' };

function unreadable(reason: string): BodyResult {
  return { kind: 'unreadable', reason };
}

/** A quote, or the reason the market entry is not one. */
function marketQuote(request: MarketRequest, entry: unknown, receivedAt: number): ParsedQuote | string {
  if (typeof entry !== 'object' || entry === null) return 'market-missing';
  const { quoteAsset, stats } = entry as Record<string, unknown>;
  // A market code pointing at the wrong quote asset would publish tether prices as toman.
  if (typeof quoteAsset === 'string' && quoteAsset !== QUOTE_ASSET[request.currency]) {
    return 'quote-asset-mismatch';
  }
  if (typeof stats !== 'object' || stats === null) return 'stats-missing';
  const { askPrice, '24h_ch': change } = stats as Record<string, unknown>;
  if (askPrice === undefined || askPrice === null) return 'ask-missing';
  const ask = decimalValue(askPrice);
  if (ask === null) return 'ask-not-a-number';
  if (ask <= 0) return 'ask-not-positive';
  let changePct: number | null = null;
  if (change !== undefined && change !== null) {
    changePct = decimalValue(change);
    if (changePct === null) return 'invalid-change-pct';
  }
  return { symbol: request.symbol, currency: request.currency, ask, changePct, tickTime: receivedAt };
}

/**
 * The quotes of `markets` in a `/v1/markets` body. The document carries no quote time, so each
 * quote's tick time is `receivedAt`.
 */
export function parseWallexMarkets(
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
  const { success, result } = body as Record<string, unknown>;
  if (success !== true) return unreadable('not-successful');
  const symbols =
    typeof result === 'object' && result !== null ? (result as Record<string, unknown>).symbols : undefined;
  if (typeof symbols !== 'object' || symbols === null || Array.isArray(symbols)) {
    return unreadable('symbols-missing');
  }
  const quotes: ParsedQuote[] = [];
  const rejected: string[] = [];
  for (const request of markets) {
    const result = marketQuote(request, (symbols as Record<string, unknown>)[request.market], receivedAt);
    if (typeof result === 'string') rejected.push(result);
    else quotes.push(result);
  }
  return { kind: 'read', quotes, rejected };
}
