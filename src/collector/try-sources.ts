import type { Config } from '../config.ts';
import type { Catalog } from '../domain/catalog.ts';
import type { SnapshotDraft } from '../domain/rates.ts';
import { type AskComparison, compareAsks, type SourceAsk } from '../domain/source-deviation.ts';
import { isUrlTemplate } from '../feeds/json-http-mapping.ts';
import type {
  ConnectionState,
  Feed,
  FeedListener,
  Quote,
  QuoteCurrency,
  SourceName,
} from '../feeds/types.ts';
import type { Logger } from '../logger.ts';
import { createFeed, type FeedTuning } from '../sources/create-feed.ts';
import { marketRequests } from '../sources/market-codes.ts';
import { type MarketUnit, marketUnits } from '../sources/market-units.ts';
import { defaultMaxDeviationPct, type SourcesSetup } from '../sources/sources-setup.ts';
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
  /** Each market the routes ask of it, as the source names and quotes it, in the order asked. */
  markets: MarketUnit[];
}

export interface TrialResult {
  /** What a snapshot would publish now. */
  draft: SnapshotDraft;
  /** The source that priced each row, by symbol. */
  servedBy: Map<string, SourceName>;
  sources: SourceTrial[];
  /** Each coin quoted by two or more sources that answered, per currency, their asks compared. */
  comparisons: CoinComparison[];
}

/** One coin in one currency as two or more sources quote it (before markup). */
export interface CoinComparison extends AskComparison {
  symbol: string;
  currency: QuoteCurrency;
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
  /** A source further than this from the others on a coin is flagged; default the set-up's, else 5. */
  maxDeviationPct?: number;
  /** Told what a long try waits for: a source asking one market at a time. */
  progress?: (line: string) => void;
}

/** States that mean the source could not be read this time. */
const failing: ReadonlySet<ConnectionState> = new Set(['backoff', 'stalled', 'refused']);

/** One source's progress while it is tried. */
class Attempt {
  readonly quotedMarkets = new Set<string>();
  /** The last ask of each market, `BTC/toman` → ask. */
  readonly asks = new Map<string, number>();
  readonly rejected: Record<string, number> = {};
  /** Rejections so far: with one URL per market, each answer is one quote or one rejection. */
  rejections = 0;
  opened = false;
  failure: string | null = null;
  lastEventAt = 0;
  settle: () => void = () => {};

  constructor(
    readonly requested: ReadonlySet<string>,
    readonly streams: boolean,
    readonly quietMs: number,
    /** One URL per market: done once every market has answered, with a quote or a rejection. */
    readonly perMarket = false,
  ) {}

  /** Done: failed, every market quoted (or, one URL per market, answered), or (polled) quiet since. */
  check(now: number): boolean {
    const done =
      this.failure !== null ||
      this.quotedMarkets.size === this.requested.size ||
      (this.perMarket && this.quotedMarkets.size + this.rejections >= this.requested.size) ||
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
  const unitsOf = new Map<SourceName, MarketUnit[]>();
  const listener: FeedListener = {
    quote(quote: Quote) {
      collector.quote(quote);
      const attempt = attempts.get(quote.source);
      if (!attempt) return;
      attempt.quotedMarkets.add(`${quote.symbol}/${quote.currency}`);
      attempt.asks.set(`${quote.symbol}/${quote.currency}`, quote.ask);
      attempt.lastEventAt = Date.now();
      attempt.check(attempt.lastEventAt);
    },
    rejected(source, reason) {
      collector.rejected(source, reason);
      const attempt = attempts.get(source);
      if (!attempt) return;
      attempt.rejected[reason] = (attempt.rejected[reason] ?? 0) + 1;
      attempt.rejections += 1;
      attempt.lastEventAt = Date.now();
      attempt.check(attempt.lastEventAt);
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

  const feeds: Array<{ feed: Feed; attempt: Attempt; waitMs: number }> = [];
  for (const source of sources.sources) {
    const markets = marketRequests(source, wanted.get(source.name) ?? [], bySymbol);
    if (markets.length === 0) continue;
    unitsOf.set(source.name, marketUnits(source, markets));
    // One URL per market: its markets arrive one by one, so it is done, like a stream, once every
    // market has quoted, and it is asked as fast as the exchange's limit allows, not every poll_seconds.
    const perMarket = source.kind === 'json-http' && isUrlTemplate(source.url);
    const attempt = new Attempt(
      new Set(markets.map(({ symbol, currency }) => `${symbol}/${currency}`)),
      source.kind === 'binance' || perMarket,
      quietMs,
      perMarket,
    );
    attempts.set(source.name, attempt);
    const sourceTuning = perMarket ? { ...tuning, pollMs: tuning?.pollMs ?? 1 } : tuning;
    // Its markets take turns at the exchange's limit: the timeout is for each answer, not for all.
    const perRequestMs =
      tuning?.minPollMs ??
      (source.kind === 'json-http' ? 60_000 / (source.max_requests_per_minute ?? 60) : 0);
    const waitMs = timeoutMs + (perMarket ? markets.length * perRequestMs : 0);
    const feed = createFeed(source, markets, {
      listener,
      logger: logger.child({ component: source.name }),
      ...(sourceTuning ? { tuning: sourceTuning } : {}),
    });
    feeds.push({ feed, attempt, waitMs });
    if (perMarket && perRequestMs >= 100) {
      options.progress?.(
        `${source.name}: ${markets.length} markets, one request every ${perRequestMs / 1000} s (about ${Math.ceil((markets.length * perRequestMs) / 1000)} s)`,
      );
    }
  }

  const started = Date.now();
  await Promise.all(
    feeds.map(async ({ feed, attempt, waitMs }) => {
      const settled = new Promise<void>((resolve) => {
        attempt.settle = resolve;
      });
      const ticker = setInterval(() => attempt.check(Date.now()), Math.min(100, quietMs));
      const deadline = setTimeout(() => attempt.settle(), waitMs);
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
      markets: unitsOf.get(source.name) ?? [],
    };
  });
  const maxDeviationPct = options.maxDeviationPct ?? sources.maxDeviationPct ?? defaultMaxDeviationPct;
  return { draft, servedBy, sources: trials, comparisons: compareAttempts(attempts, maxDeviationPct) };
}

/** The asks of the sources that answered, compared per coin and currency, in symbol order. */
function compareAttempts(
  attempts: ReadonlyMap<SourceName, Attempt>,
  maxDeviationPct: number,
): CoinComparison[] {
  const byMarket = new Map<string, SourceAsk[]>();
  for (const [source, attempt] of attempts) {
    if (attempt.failure !== null) continue;
    for (const [market, ask] of attempt.asks) {
      const list = byMarket.get(market) ?? [];
      list.push({ source, ask });
      byMarket.set(market, list);
    }
  }
  const comparisons: CoinComparison[] = [];
  for (const [market, asks] of byMarket) {
    const comparison = compareAsks(asks, maxDeviationPct);
    if (comparison === null) continue;
    const [symbol, currency] = market.split('/') as [string, QuoteCurrency];
    comparisons.push({ symbol, currency, ...comparison });
  }
  return comparisons.sort((a, b) => a.symbol.localeCompare(b.symbol) || a.currency.localeCompare(b.currency));
}
