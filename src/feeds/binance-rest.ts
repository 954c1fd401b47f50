/**
 * The Binance REST bootstrap: one pass over `GET /api/v3/ticker/24hr?symbols=[…]&symbolStatus=TRADING`
 * (docs/sources.md, "Binance"), so rows have prices before the first stream tick; a market that is
 * not trading (halted, in a break) is left out by Binance itself, so its last price is never taken
 * for a price a user can buy at. Failures are logged and end the pass: the stream delivers prices
 * anyway.
 *
 * Rate limits (docs/sources.md, "Binance"): a 429 says in `Retry-After` how many seconds to wait to
 * avoid a ban; the batch is asked again once, after that wait, if it is short. A 418 is the ban
 * itself, for clients that kept asking after 429s: a refusal, with the ban's length in the detail.
 */
import type { Logger } from '../logger.ts';
import { retryAfterMs } from './backoff.ts';
import { parseRestTicker, type TickerResult } from './binance-ticker.ts';
import { chunk } from './chunk.ts';
import { httpErrorDetail, isRefusal } from './refusal.ts';

interface RestBootstrapOptions {
  /** The configured source name, for the logs. */
  source: string;
  /** Config `NERKH_BINANCE_REST_URL`, e.g. 'https://api.binance.com'. */
  restBaseUrl: string;
  pairs: ReadonlySet<string>;
  /** Per request. */
  timeoutMs: number;
  /** Aborting ends the pass, requests in flight included. */
  signal: AbortSignal;
  logger: Logger;
  /** Each ticker of the answers, validated. */
  onResult(result: TickerResult): void;
  /** Binance refused us (HTTP 451 or 403): `HTTP 451: <Binance's message>`. The pass ends. */
  onRefused(detail: string): void;
}

/** Binance REST: 100+ symbols in one `symbols=[…]` request cost the maximum weight anyway. */
const REST_BATCH = 100;
/** A 429's wait the bootstrap sits out before asking again; longer, the stream's ticks come first. */
const MAX_RATE_LIMIT_WAIT_MS = 10_000;

class BinanceRestError extends Error {
  constructor(
    readonly status: number,
    readonly code: number | null,
    message: string,
    /** `Retry-After` in milliseconds, when the answer had one. */
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
  }
}

/** A wait the signal can cut short. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** `HTTP 418: <Binance's words>; banned for 120 s`. */
function banDetail(error: BinanceRestError): string {
  return error.retryAfterMs === null
    ? error.message
    : `${error.message}; banned for ${Math.round(error.retryAfterMs / 1000)} s`;
}

export async function bootstrapFromRest(options: RestBootstrapOptions): Promise<void> {
  const { signal, logger } = options;
  const restBase = options.restBaseUrl.replace(/\/+$/, '');
  for (const batch of chunk([...options.pairs], REST_BATCH)) {
    if (signal.aborted) return;
    const query = `symbols=${encodeURIComponent(JSON.stringify(batch))}&symbolStatus=TRADING`;
    try {
      accept(options, await fetchAfterRateLimit(options, restBase, query));
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof BinanceRestError && (isRefusal(error.status) || error.status === 418)) {
        options.onRefused(error.status === 418 ? banDetail(error) : error.message);
        return;
      }
      if (error instanceof BinanceRestError && error.status === 429) {
        logger.warn(
          { source: options.source, err: error },
          `${options.source}: REST bootstrap rate limited; waiting for stream ticks`,
        );
        return;
      }
      if (error instanceof BinanceRestError && error.status === 200) {
        options.onResult({ kind: 'rejected', reason: 'invalid-json' });
      } else if (error instanceof BinanceRestError && error.code === -1121) {
        // One unknown symbol fails the whole batch; ask pair by pair to find it and keep the rest.
        await bootstrapOneByOne(options, restBase, batch);
      } else {
        logger.warn(
          { source: options.source, err: error },
          `${options.source}: REST bootstrap failed; waiting for stream ticks`,
        );
      }
    }
  }
}

/** One request; after a 429 with a short `Retry-After`, once more when the wait is over. */
async function fetchAfterRateLimit(
  options: RestBootstrapOptions,
  restBase: string,
  query: string,
): Promise<unknown> {
  try {
    return await fetchTickers(options, restBase, query);
  } catch (error) {
    if (
      !(error instanceof BinanceRestError) ||
      error.status !== 429 ||
      error.retryAfterMs === null ||
      error.retryAfterMs > MAX_RATE_LIMIT_WAIT_MS
    ) {
      throw error;
    }
    options.logger.info(
      { source: options.source, waitMs: error.retryAfterMs },
      `${options.source}: REST rate limited; asking again after Retry-After`,
    );
    await pause(error.retryAfterMs, options.signal);
    if (options.signal.aborted) throw error;
    return fetchTickers(options, restBase, query);
  }
}

async function bootstrapOneByOne(
  options: RestBootstrapOptions,
  restBase: string,
  pairs: string[],
): Promise<void> {
  for (const pair of pairs) {
    if (options.signal.aborted) return;
    try {
      accept(
        options,
        await fetchTickers(options, restBase, `symbol=${encodeURIComponent(pair)}&symbolStatus=TRADING`),
      );
    } catch (error) {
      if (options.signal.aborted) return;
      if (error instanceof BinanceRestError && error.code === -1220) {
        // Not trading (halted, in a break): not a price a user can buy at.
        options.onResult({ kind: 'rejected', reason: 'market-not-trading' });
        continue;
      }
      if (error instanceof BinanceRestError && (error.status === 429 || error.status === 418)) {
        options.logger.warn(
          { source: options.source, err: error },
          `${options.source}: REST bootstrap rate limited; waiting for stream ticks`,
        );
        return;
      }
      options.logger.warn(
        { source: options.source, pair, err: error },
        `${options.source}: REST bootstrap failed for a pair`,
      );
    }
  }
}

function accept(options: RestBootstrapOptions, body: unknown): void {
  const items = Array.isArray(body) ? body : [body];
  const now = Date.now();
  for (const item of items) options.onResult(parseRestTicker(item, options.pairs, now));
}

async function fetchTickers(
  options: RestBootstrapOptions,
  restBase: string,
  query: string,
): Promise<unknown> {
  const response = await fetch(`${restBase}/api/v3/ticker/24hr?${query}`, {
    signal: AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs)]),
    headers: { accept: 'application/json' },
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    // An error page in front of Binance (a CDN's 451, a proxy's 502) is still an error answer.
    const detail = response.ok
      ? `HTTP ${response.status}: body is not JSON`
      : httpErrorDetail(response.status, text);
    throw new BinanceRestError(
      response.status,
      null,
      detail,
      retryAfterMs(response.headers.get('retry-after')),
    );
  }
  if (!response.ok) {
    const { code } = (body ?? {}) as { code?: unknown };
    throw new BinanceRestError(
      response.status,
      typeof code === 'number' ? code : null,
      httpErrorDetail(response.status, text),
      retryAfterMs(response.headers.get('retry-after')),
    );
  }
  return body;
}
