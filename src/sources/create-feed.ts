import { BinanceFeed } from '../feeds/binance.ts';
import { JsonHttpFeed } from '../feeds/json-http.ts';
import { NobitexFeed } from '../feeds/nobitex.ts';
import { perCoinListener } from '../feeds/per-coin-listener.ts';
import type { Feed, FeedListener, MarketRequest } from '../feeds/types.ts';
import { WallexFeed } from '../feeds/wallex.ts';
import type { Logger } from '../logger.ts';
import { type ConfiguredSource, defaultPollSeconds } from './sources-setup.ts';

/**
 * Timings that default from the sources file or the adapters; tests shorten them so faults and
 * recoveries play out in milliseconds instead of minutes.
 */
export interface FeedTuning {
  /** Every polled source's interval, instead of its `poll_seconds`. */
  pollMs?: number;
  /** Floor of the interval per request (the exchange's rate limit); lowered only against a simulator. */
  minPollMs?: number;
  pollTimeoutMs?: number;
  pollBackoffMaxMs?: number;
  binanceStallMs?: number;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** Ceiling of Binance's backoff while it refuses us (HTTP 451/403). */
  refusedBackoffMaxMs?: number;
}

interface FeedDeps {
  listener: FeedListener;
  logger: Logger;
  tuning?: FeedTuning;
}

/** The feed of one configured source, following `markets` (its own codes for what routes ask of it). */
export function createFeed(
  source: ConfiguredSource,
  markets: readonly MarketRequest[],
  deps: FeedDeps,
): Feed {
  const { listener, logger, tuning = {} } = deps;
  if (source.kind === 'binance') {
    return new BinanceFeed({
      name: source.name,
      url: source.url,
      ...(source.rest_url === undefined ? {} : { restUrl: source.rest_url }),
      markets,
      // Prices per one coin, as the polled kinds hand them (docs/sources.md#the-unit-of-a-market).
      listener: perCoinListener(listener, markets),
      logger,
      stallMs: tuning.binanceStallMs,
      backoffBaseMs: tuning.backoffBaseMs,
      backoffMaxMs: tuning.backoffMaxMs,
      refusedBackoffMaxMs: tuning.refusedBackoffMaxMs,
    });
  }
  const polled = {
    name: source.name,
    url: source.url,
    markets,
    listener,
    logger,
    pollMs: tuning.pollMs ?? (source.poll_seconds ?? defaultPollSeconds) * 1000,
    minPollMs: tuning.minPollMs,
    timeoutMs: tuning.pollTimeoutMs,
    backoffMaxMs: tuning.pollBackoffMaxMs,
    headers: source.secretHeaders,
  };
  switch (source.kind) {
    case 'nobitex':
      return new NobitexFeed({ ...polled, botName: source.bot_name });
    case 'wallex':
      return new WallexFeed({
        ...polled,
        timeoutMs:
          tuning.pollTimeoutMs ??
          (source.timeout_seconds === undefined ? undefined : source.timeout_seconds * 1000),
      });
    case 'json-http':
      return new JsonHttpFeed({
        ...polled,
        mapping: source.mapping,
        ...(source.max_requests_per_minute === undefined
          ? {}
          : { maxRequestsPerMinute: source.max_requests_per_minute }),
      });
  }
}
