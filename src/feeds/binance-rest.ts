/**
 * The Binance REST bootstrap: one pass over `GET /api/v3/ticker/24hr?symbols=[…]`
 * (https://developers.binance.com/docs/binance-spot-api-docs/rest-api/market-data-endpoints), so
 * rows have prices before the first stream tick. Failures are logged and end the pass: the stream
 * delivers prices anyway.
 */
import type { Logger } from '../logger.ts';
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

class BinanceRestError extends Error {
  constructor(
    readonly status: number,
    readonly code: number | null,
    message: string,
  ) {
    super(message);
  }
}

export async function bootstrapFromRest(options: RestBootstrapOptions): Promise<void> {
  const { signal, logger } = options;
  const restBase = options.restBaseUrl.replace(/\/+$/, '');
  for (const batch of chunk([...options.pairs], REST_BATCH)) {
    if (signal.aborted) return;
    try {
      accept(
        options,
        await fetchTickers(options, restBase, `symbols=${encodeURIComponent(JSON.stringify(batch))}`),
      );
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof BinanceRestError && isRefusal(error.status)) {
        options.onRefused(error.message);
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

async function bootstrapOneByOne(
  options: RestBootstrapOptions,
  restBase: string,
  pairs: string[],
): Promise<void> {
  for (const pair of pairs) {
    if (options.signal.aborted) return;
    try {
      accept(options, await fetchTickers(options, restBase, `symbol=${encodeURIComponent(pair)}`));
    } catch (error) {
      if (options.signal.aborted) return;
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
    throw new BinanceRestError(response.status, null, detail);
  }
  if (!response.ok) {
    const { code } = (body ?? {}) as { code?: unknown };
    throw new BinanceRestError(
      response.status,
      typeof code === 'number' ? code : null,
      httpErrorDetail(response.status, text),
    );
  }
  return body;
}
