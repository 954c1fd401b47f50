import type { Config } from '../config.ts';
import type { Catalog } from '../domain/catalog.ts';
import type { SnapshotDraft } from '../domain/rates.ts';
import { isUrlTemplate } from '../feeds/json-http-mapping.ts';
import type { ConnectionState, Feed, FeedListener, Quote, SourceName } from '../feeds/types.ts';
import type { Logger } from '../logger.ts';
import { createFeed, type FeedTuning } from '../sources/create-feed.ts';
import { marketRequests } from '../sources/market-codes.ts';
import type { SourcesSetup } from '../sources/sources-setup.ts';
import { MemorySnapshotStore } from '../store/memory/snapshot-store.ts';
import { Collector } from './collector.ts';

/** How one source did when tried once. */
export interface SourceTrial {
  name: SourceName;
  kind: string;
  ok: boolean;
  /** Why it failed, or what it quoted. */
  detail: string;
  /** Markets the routes ask of it (coin and currency). */
  requested: number;
  quoted: number;
  /** The markets it did not quote, as `BTC/toman`. */
  missing: string[];
  /** Values it sent that were refused, by reason. */
  rejected: Record<string, number>;
}

export interface TrialResult {
  /** What a snapshot would publish now. */
  draft: SnapshotDraft;
  /** The source that priced each row, by symbol. */
  servedBy: Map<string, SourceName>;
  sources: SourceTrial[];
}

interface TrialOptions {
  config: Config;
  catalog: Catalog;
  sources: SourcesSetup;
  logger: Logger;
  /** How long a source may take to answer at all, or a stream to quote every pair. Default 10 s. */
  timeoutMs?: number;
  /** A polled source that answered is done once it has sent nothing for this long. Default 1 s. */
  quietMs?: number;
  tuning?: FeedTuning;
}

/** States that mean the source could not be read this time. */
const failing: ReadonlySet<ConnectionState> = new Set(['backoff', 'stalled', 'refused']);

/** One source's progress while it is tried. */
class Attempt {
  readonly quotedMarkets = new Set<string>();
  readonly rejected: Record<string, number> = {};
  opened = false;
  failure: string | null = null;
  lastEventAt = 0;
  settle: () => void = () => {};

  constructor(
    readonly requested: ReadonlySet<string>,
    readonly streams: boolean,
    readonly quietMs: number,
  ) {}

  /** Done: failed, every market quoted, or (polled) answered and quiet since. */
  check(now: number): boolean {
    const done =
      this.failure !== null ||
      this.quotedMarkets.size === this.requested.size ||
      (!this.streams && this.opened && now - this.lastEventAt >= this.quietMs);
    if (done) this.settle();
    return done;
  }
}

/**
 * Tries a sources set-up once, as `nerkh sources check` does before it is deployed: starts every
 * source's feed into a collector with no store behind it, until each has quoted everything the
 * routes ask of it, failed, or answered and gone quiet (a stream: until the timeout), then tells
 * what a snapshot would publish and how each source did.
 */
export async function trySources(options: TrialOptions): Promise<TrialResult> {
  const { config, catalog, sources, logger, timeoutMs = 10_000, quietMs = 1000, tuning } = options;
  const collector = new Collector({
    catalog,
    config,
    sources,
    store: new MemorySnapshotStore(),
    logger: logger.child({ component: 'collector' }),
  });
  const wanted = collector.requests();
  const bySymbol = new Map(catalog.map((entry) => [entry.symbol, entry]));
  const attempts = new Map<SourceName, Attempt>();
  const listener: FeedListener = {
    quote(quote: Quote) {
      collector.quote(quote);
      const attempt = attempts.get(quote.source);
      if (!attempt) return;
      attempt.quotedMarkets.add(`${quote.symbol}/${quote.currency}`);
      attempt.lastEventAt = Date.now();
      attempt.check(attempt.lastEventAt);
    },
    rejected(source, reason) {
      collector.rejected(source, reason);
      const attempt = attempts.get(source);
      if (!attempt) return;
      attempt.rejected[reason] = (attempt.rejected[reason] ?? 0) + 1;
      attempt.lastEventAt = Date.now();
    },
    connectionState(source, state, detail) {
      collector.connectionState(source, state, detail);
      const attempt = attempts.get(source);
      if (!attempt || attempt.failure !== null) return;
      if (state === 'open') attempt.opened = true;
      // The retry the feed plans does not concern a single try.
      if (failing.has(state)) attempt.failure = detail.replace(/; (retrying|reconnecting) in .*$/, '');
      attempt.lastEventAt = Date.now();
      attempt.check(attempt.lastEventAt);
    },
  };

  const feeds: Array<{ feed: Feed; attempt: Attempt }> = [];
  for (const source of sources.sources) {
    const markets = marketRequests(source, wanted.get(source.name) ?? [], bySymbol);
    if (markets.length === 0) continue;
    // One URL per market: its markets arrive one by one, so it is done, like a stream, once every
    // market has quoted, and it is asked as fast as the exchange's limit allows, not every poll_seconds.
    const perMarket = source.kind === 'json-http' && isUrlTemplate(source.url);
    const attempt = new Attempt(
      new Set(markets.map(({ symbol, currency }) => `${symbol}/${currency}`)),
      source.kind === 'binance' || perMarket,
      quietMs,
    );
    attempts.set(source.name, attempt);
    const sourceTuning = perMarket ? { ...tuning, pollMs: tuning?.pollMs ?? 1 } : tuning;
    const feed = createFeed(source, markets, {
      listener,
      logger: logger.child({ component: source.name }),
      ...(sourceTuning ? { tuning: sourceTuning } : {}),
    });
    feeds.push({ feed, attempt });
  }

  const started = Date.now();
  await Promise.all(
    feeds.map(async ({ feed, attempt }) => {
      const settled = new Promise<void>((resolve) => {
        attempt.settle = resolve;
      });
      const ticker = setInterval(() => attempt.check(Date.now()), Math.min(100, quietMs));
      const deadline = setTimeout(() => attempt.settle(), timeoutMs);
      feed.start();
      await settled;
      clearInterval(ticker);
      clearTimeout(deadline);
      await feed.stop();
    }),
  );
  logger.debug({ ms: Date.now() - started }, 'sources tried');

  const servedBy = collector.servedBy();
  const draft = collector.buildSnapshotDraft();
  const trials = sources.sources.map((source): SourceTrial => {
    const attempt = attempts.get(source.name);
    const requested = attempt ? [...attempt.requested] : [];
    const missing = requested.filter((market) => !attempt?.quotedMarkets.has(market));
    const quoted = requested.length - missing.length;
    let ok = attempt !== undefined && attempt.failure === null && quoted > 0;
    let detail: string;
    if (attempt === undefined) {
      ok = true;
      detail = 'no route asks it for a coin the catalog lists';
    } else if (attempt.failure !== null) {
      detail = attempt.failure;
    } else if (quoted === 0) {
      detail = attempt.opened
        ? 'answered, but quoted none of the markets asked of it'
        : `no answer within ${timeoutMs / 1000} s`;
    } else {
      detail = `quoted ${quoted} of ${requested.length} markets`;
    }
    return {
      name: source.name,
      kind: source.kind,
      ok,
      detail,
      requested: requested.length,
      quoted,
      missing,
      rejected: attempt?.rejected ?? {},
    };
  });
  return { draft, servedBy, sources: trials };
}
