import type { Config } from '../config.ts';
import type { Catalog } from '../domain/catalog.ts';
import { wholeToman } from '../domain/pricing.ts';
import type { Snapshot, SnapshotDraft } from '../domain/rates.ts';
import type { ConnectionState, FeedListener, Quote, QuoteCurrency, SourceName } from '../feeds/types.ts';
import type { Logger } from '../logger.ts';
import { defaultMaxDeviationPct, type SourcesSetup } from '../sources/sources-setup.ts';
import type { CollectorStatus, CommitOutcome, HeldPrice } from '../store/collector-status.ts';
import type { PriceAcceptance } from '../store/price-acceptance.ts';
import type { CollectorStatusStore, PriceAcceptanceStore, SnapshotStore } from '../store/types.ts';
import type { RouteMove } from './coin-route.ts';
import { CoinRouting } from './coin-routing.ts';
import { CommitSchedule } from './commit-schedule.ts';
import { DeviationWatch, type SourceDeviation } from './deviation-watch.ts';
import { logRouteMoves } from './failover-log.ts';
import { PriceGuard } from './price-guard.ts';
import { SnapshotBuilder } from './snapshot-builder.ts';
import { type RejectedCounts, SourceHealthRegistry } from './source-health.ts';
import type { SourceSeries } from './source-series.ts';
import { type CollectorTimers, systemTimers } from './timers.ts';

export type CollectorConfig = Pick<
  Config,
  'NERKH_REFRESH_SECONDS' | 'NERKH_MARKUP_PCT' | 'NERKH_MAX_JUMP_PCT' | 'markupOverrides' | 'coinUrlTemplate'
>;

export interface CollectorOptions {
  catalog: Catalog;
  config: CollectorConfig;
  store: SnapshotStore & CollectorStatusStore & PriceAcceptanceStore;
  logger: Logger;
  /** Epoch milliseconds; default Date.now. */
  clock?: () => number;
  timers?: CollectorTimers;
  /** Snapshot interval; default NERKH_REFRESH_SECONDS. */
  refreshMs?: number;
  /** How often the health report is written to the store (also written at each commit). */
  statusIntervalMs?: number;
  /**
   * After start, the first snapshot is committed as soon as tether and every catalog coin have
   * quoted, or when this grace period ends with whatever has arrived.
   */
  firstCommitGraceMs?: number;
  /**
   * The sources and each coin's routes through them (the sources file, or the built-in default):
   * `status()` lists the sources from the start, before they first connect; a quote no route asks
   * for is refused as `unrouted`.
   */
  sources: SourcesSetup;
  /** A source with no valid message for this long is reported degraded or down. */
  sourceStaleMs?: number;
  /**
   * A price beyond the jump guard, short of a unit-sized factor, that no other source confirms is
   * accepted once the source has held it (within the guard of itself) for this long and
   * `jumpConfirmTicks` ticks: a level that persists in a coin's only source is the market, not a
   * corrupt frame. A unit-sized level is never accepted on time alone (docs/sources.md#the-price-guard).
   */
  jumpConfirmMs?: number;
  jumpConfirmTicks?: number;
}

/** An operator's acceptance of a held price applies to a hold for this long after it is recorded. */
const acceptanceLifetimeMs = 3_600_000;

export interface CommitInfo {
  /** Time to build the snapshot from the collector state. */
  buildMs: number;
  /** Build plus the store's atomic commit. */
  durationMs: number;
}

export type CommitListener = (snapshot: Snapshot, info: CommitInfo) => void;

/** Told of every commit the store refused, with the error's class (`errorClassOf`). */
export type CommitFailureListener = (failure: { durationMs: number; error: string }) => void;

/**
 * What may be reported of a failed commit: the error's class and, when it has one, its code
 * (`SqliteError SQLITE_READONLY`, `DatabaseError 25006`). Never the message: a driver's message
 * may quote a connection string, a path or a value.
 */
export function errorClassOf(error: unknown): string {
  if (!(error instanceof Error)) return 'non-error thrown';
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^[A-Za-z0-9_]{1,40}$/.test(code) ? `${error.name} ${code}` : error.name;
}

/**
 * Latest state per coin from the feeds, committed as one snapshot on a schedule (docs/architecture.md#data).
 * Feeds call it as their FeedListener; the per-tick path is two Map lookups, a few numeric compares
 * and stores, so the HTTP edge never waits on it and 5,000 coins stay cheap. Which source serves a
 * coin is decided when a snapshot or a health report is made, or at once when a source refuses;
 * rows are built only at commit time.
 *
 * It composes the routing (one price series per coin, currency and source, and each coin's serving
 * source), the price guard, the snapshot builder, the commit schedule and the sources' health, and
 * commits snapshots to the store.
 */
export class Collector implements FeedListener {
  readonly #store: SnapshotStore & CollectorStatusStore & PriceAcceptanceStore;
  readonly #logger: Logger;
  readonly #clock: () => number;
  readonly #timers: CollectorTimers;
  readonly #refreshMs: number;
  readonly #statusIntervalMs: number;
  readonly #guard: PriceGuard;
  readonly #routing: CoinRouting;
  readonly #staleMs: number;
  readonly #snapshots: SnapshotBuilder;
  readonly #health: SourceHealthRegistry;
  readonly #deviations: DeviationWatch;
  readonly #schedule: CommitSchedule;
  readonly #commitListeners = new Set<CommitListener>();
  readonly #failureListeners = new Set<CommitFailureListener>();
  #lastCommit: CommitOutcome | undefined;
  #lastOkAt: string | null = null;
  /** Route moves seen (a failover or a return per coin and currency), for the metrics. */
  readonly #moveListeners = new Set<(moves: readonly RouteMove[]) => void>();

  /** Tether and the coins quoted by the source that will serve them, for the first commit. */
  #quoted = 0;
  #running = false;
  #statusTimer: unknown = null;
  #commitChain: Promise<unknown> = Promise.resolve();
  #statusChain: Promise<unknown> = Promise.resolve();
  /** The operator's acceptances not yet applied to a hold, and the last one read. */
  #acceptances: PriceAcceptance[] = [];
  #lastAcceptanceId = 0;

  constructor(options: CollectorOptions) {
    const { catalog, config } = options;
    this.#store = options.store;
    this.#logger = options.logger;
    this.#clock = options.clock ?? Date.now;
    this.#timers = options.timers ?? systemTimers;
    this.#refreshMs = options.refreshMs ?? config.NERKH_REFRESH_SECONDS * 1000;
    this.#statusIntervalMs = options.statusIntervalMs ?? 5000;
    this.#routing = new CoinRouting(options.sources, catalog);
    this.#staleMs = this.#routing.staleMs;
    this.#guard = new PriceGuard({
      maxJumpPct: config.NERKH_MAX_JUMP_PCT,
      jumpConfirmMs: options.jumpConfirmMs ?? 300_000,
      jumpConfirmTicks: options.jumpConfirmTicks ?? 5,
      maxDeviationPct: options.sources.maxDeviationPct ?? defaultMaxDeviationPct,
      staleMs: this.#staleMs,
      logger: this.#logger,
    });
    this.#snapshots = new SnapshotBuilder({ catalog, config, routing: this.#routing });
    this.#health = new SourceHealthRegistry({
      sources: options.sources.sources.map((source) => source.name),
      staleMs: options.sourceStaleMs ?? 60_000,
      logger: this.#logger,
    });
    this.#deviations = new DeviationWatch({
      maxDeviationPct: options.sources.maxDeviationPct ?? defaultMaxDeviationPct,
      staleMs: this.#staleMs,
      logger: this.#logger,
    });
    this.#schedule = new CommitSchedule({
      timers: this.#timers,
      clock: this.#clock,
      graceMs: options.firstCommitGraceMs ?? 5000,
      refreshMs: this.#refreshMs,
      commit: () => this.commitNow(),
    });
  }

  /**
   * Carries the last committed snapshot over a restart: its prices and as_of become the starting
   * state, so a source that is down at boot does not blank coins the previous run had priced.
   * Seeded prices are published unchanged until a live tick moves them.
   */
  seed(snapshot: Snapshot): void {
    this.#snapshots.seed(snapshot);
  }

  // ---- FeedListener: the hot path -------------------------------------------------------------

  quote(quote: Quote): void {
    const series = this.#routing.seriesOf(quote.source, quote.currency, quote.symbol);
    if (series === undefined) {
      this.#health.rejected(quote.source, 'unrouted');
      return;
    }
    // usdt_irt is published as a whole toman: a move within one is no move.
    const ask = series.wholeToman ? wholeToman(quote.ask) : quote.ask;
    const now = this.#clock();
    const wasHeld = series.held !== null;
    const rejection = this.#guard.apply(series, ask, quote.tickTime, quote.source, now);
    if (rejection !== null) {
      this.#health.rejected(quote.source, rejection);
      // A newly held source gives its coin up at once, as a refusing one does.
      if (!wasHeld && series.held !== null) this.#selectSources(now);
      return;
    }
    series.change = quote.changePct;
    this.#health.heard(quote.source, now);
    this.#deviations.observe(quote.source, quote.symbol, quote.currency, ask, now);
    if (series.heard(now, this.#staleMs)) this.#firstQuote(series);
  }

  /**
   * A series' first live quote may make its coin quoted by the source that will serve it: the
   * first snapshot waits for that, not for any source, or a fallback that answers first would
   * price it until the next commit.
   */
  #firstQuote(series: SourceSeries): void {
    const coin = series.coin;
    if (coin.quoted || !coin.quotedByPreferred()) return;
    coin.quoted = true;
    this.#quoted++;
    if (this.#quoted === this.#routing.coins.length + 1) this.#schedule.allQuoted();
  }

  /** A source refusing us changes which source each coin waits for. */
  #recountQuoted(): void {
    for (const coin of this.#routing.quotable()) {
      if (coin.quoted || !coin.quotedByPreferred()) continue;
      coin.quoted = true;
      this.#quoted++;
    }
    if (this.#quoted === this.#routing.coins.length + 1) this.#schedule.allQuoted();
  }

  rejected(source: SourceName, reason: string): void {
    this.#health.rejected(source, reason);
  }

  /** A source that refuses gives up its coins at once; one that answers again must prove itself. */
  connectionState(source: SourceName, state: ConnectionState, detail: string): void {
    this.#health.connectionState(source, state, detail);
    const availability = this.#routing.availabilityOf(source);
    if (availability === undefined) return;
    if (state === 'refused') {
      availability.refused = true;
      availability.refusal = detail;
      this.#selectSources(this.#clock());
      this.#recountQuoted();
    } else if (state === 'open' && availability.refused) {
      availability.refused = false;
      availability.servingSince = this.#clock();
    }
  }

  /** Picks each coin's serving sources at `now`, and logs the coins that moved. */
  #selectSources(now: number): void {
    const moves = this.#routing.select(now);
    if (moves.length === 0) return;
    logRouteMoves(this.#logger, moves);
    for (const listener of this.#moveListeners) listener(moves);
  }

  /** What each source must follow: every coin and currency some route asks of it. */
  requests(): Map<SourceName, Array<{ symbol: string; currency: QuoteCurrency }>> {
    return this.#routing.requests();
  }

  // ---- Snapshots -------------------------------------------------------------------------------

  /** The current state as a snapshot draft: coins that have a price, sorted by symbol. */
  buildSnapshotDraft(): SnapshotDraft {
    const now = this.#clock();
    this.#selectSources(now);
    return this.#snapshots.build(now);
  }

  /**
   * Builds and commits one snapshot now. Commits run one at a time; the draft is built
   * synchronously, so ticks arriving during the store write land in the next snapshot.
   * Resolves to null when there is nothing to commit yet or the store failed (logged).
   */
  commitNow(): Promise<Snapshot | null> {
    const run = this.#commitChain.then(() => this.#commitOnce());
    this.#commitChain = run;
    return run;
  }

  async #commitOnce(): Promise<Snapshot | null> {
    const started = performance.now();
    const draft = this.buildSnapshotDraft();
    if (draft.rates.length === 0 && draft.usdt_irt === null) return null;
    const buildMs = performance.now() - started;
    let snapshot: Snapshot;
    try {
      snapshot = await this.#store.commitSnapshot(draft);
    } catch (error) {
      this.#logger.error({ err: error }, 'snapshot commit failed; the previous snapshot stays served');
      const failure = { durationMs: performance.now() - started, error: errorClassOf(error) };
      this.#recordCommit('failed', failure.durationMs, failure.error);
      for (const listener of this.#failureListeners) listener(failure);
      // Reported now, not at the next report: a failed commit must be visible at once.
      void this.writeStatus();
      return null;
    }
    const info: CommitInfo = { buildMs, durationMs: performance.now() - started };
    this.#recordCommit('ok', info.durationMs, null);
    this.#logger.info(
      {
        id: snapshot.id,
        count: snapshot.rates.length,
        usdt_irt: snapshot.usdt_irt,
        source: snapshot.source,
        duration_ms: Number(info.durationMs.toFixed(2)),
      },
      'snapshot committed',
    );
    for (const listener of this.#commitListeners) {
      try {
        listener(snapshot, info);
      } catch (error) {
        this.#logger.error({ err: error }, 'commit listener failed');
      }
    }
    void this.writeStatus();
    return snapshot;
  }

  #recordCommit(outcome: CommitOutcome['outcome'], durationMs: number, error: string | null): void {
    const at = new Date(this.#clock()).toISOString();
    if (outcome === 'ok') this.#lastOkAt = at;
    this.#lastCommit = {
      outcome,
      at,
      duration_ms: Number(durationMs.toFixed(2)),
      error,
      last_ok_at: this.#lastOkAt,
    };
  }

  /** Subscribes to commits (logs, in-process readers); returns the unsubscribe function. */
  onCommit(listener: CommitListener): () => void {
    this.#commitListeners.add(listener);
    return () => this.#commitListeners.delete(listener);
  }

  /** Subscribes to commits the store refused; returns the unsubscribe function. */
  onCommitFailure(listener: CommitFailureListener): () => void {
    this.#failureListeners.add(listener);
    return () => this.#failureListeners.delete(listener);
  }

  /** Subscribes to coins moving between sources (failovers and returns); returns the unsubscribe function. */
  onRouteMoves(listener: (moves: readonly RouteMove[]) => void): () => void {
    this.#moveListeners.add(listener);
    return () => this.#moveListeners.delete(listener);
  }

  // ---- Lifecycle -------------------------------------------------------------------------------

  /** Starts the first-commit watch, the refresh schedule and the health reports. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#schedule.start();
    this.#scheduleStatus();
    void this.writeStatus();
  }

  /** Clears the timers and waits for an in-flight commit; commits nothing itself. */
  async stop(): Promise<void> {
    this.#running = false;
    this.#schedule.stop();
    if (this.#statusTimer !== null) this.#timers.clearTimeout(this.#statusTimer);
    this.#statusTimer = null;
    await this.#commitChain;
    await this.#statusChain;
  }

  #scheduleStatus(): void {
    this.#statusTimer = this.#timers.setTimeout(() => {
      this.#statusTimer = null;
      if (!this.#running) return;
      void this.writeStatus().finally(() => {
        if (this.#running && this.#statusTimer === null) this.#scheduleStatus();
      });
    }, this.#statusIntervalMs);
  }

  // ---- Health ----------------------------------------------------------------------------------

  /** Per-source health as `/v1/health` reports it. */
  status(): CollectorStatus {
    const now = this.#clock();
    const counts = new Map<SourceName, number>();
    for (const source of this.servedBy().values()) counts.set(source, (counts.get(source) ?? 0) + 1);
    return {
      reported_at: new Date(now).toISOString(),
      refresh_seconds: this.#refreshMs / 1000,
      sources: this.#health.report(now, counts),
      ...(this.#lastCommit === undefined ? {} : { last_commit: this.#lastCommit }),
      held: this.held(),
    };
  }

  /** The source whose price each row shows now, by symbol (the USDT row: tether's source). */
  servedBy(): Map<string, SourceName> {
    const now = this.#clock();
    this.#selectSources(now);
    return this.#snapshots.servedBy(now);
  }

  rejectedCounts(): RejectedCounts {
    return this.#health.rejectedCounts();
  }

  /** How far each source is from the others on each coin two or more sources quote. */
  deviations(): SourceDeviation[] {
    return this.#deviations.deviations();
  }

  /** Accepted quotes of each source that deviated from the other sources when they came. */
  deviatingQuotes(): Record<SourceName, number> {
    return this.#deviations.deviatingQuotes();
  }

  /** The prices held at a unit-sized level now, with the source serving each coin meanwhile. */
  held(): HeldPrice[] {
    const held = this.#routing.held();
    if (held.length === 0) return [];
    const servedBy = this.servedBy();
    return held.map((series) => {
      const level = series.held as NonNullable<typeof series.held>;
      return {
        symbol: series.symbol,
        currency: series.currency,
        source: series.source.name,
        price: level.price,
        reference: level.reference,
        reason: level.reason,
        since: new Date(level.since).toISOString(),
        served_by: servedBy.get(series.symbol) ?? null,
      };
    });
  }

  /**
   * Applies the operator's acceptances recorded within the last hour (`nerkh prices accept`) to the
   * holds they name: each is kept until a hold of its coin, currency and source at its level is
   * found, or it is an hour old. Read at each health report, so within a few seconds.
   */
  async #applyAcceptances(): Promise<void> {
    const now = this.#clock();
    const since = new Date(now - acceptanceLifetimeMs).toISOString();
    const fresh = await this.#store.priceAcceptances({ afterId: this.#lastAcceptanceId, since });
    if (fresh.length > 0) this.#lastAcceptanceId = (fresh.at(-1) as PriceAcceptance).id;
    const pending: PriceAcceptance[] = [];
    for (const acceptance of [...this.#acceptances, ...fresh]) {
      if (acceptance.accepted_at < since) continue;
      const series = this.#routing.seriesOf(acceptance.source, acceptance.currency, acceptance.symbol);
      const previous = series?.price ?? 0;
      if (series === undefined || !this.#guard.acceptHeld(series, acceptance.price)) {
        pending.push(acceptance);
        continue;
      }
      this.#logger.warn(
        {
          symbol: acceptance.symbol,
          currency: acceptance.currency,
          source: acceptance.source,
          price: series.price,
          previous,
          operator: acceptance.operator,
          reason: acceptance.reason,
          acceptance_id: acceptance.id,
        },
        'held price accepted by the operator; publishing it at the next snapshot',
      );
      this.#selectSources(now);
    }
    this.#acceptances = pending;
  }

  /** Writes the health report to the store (other instances serve it); logs new rejections. */
  writeStatus(): Promise<void> {
    const run = this.#statusChain.then(async () => {
      try {
        await this.#applyAcceptances();
      } catch (error) {
        this.#logger.warn({ err: error }, 'reading the operator price acceptances failed');
      }
      this.#health.logNewRejections();
      try {
        await this.#store.putCollectorStatus(this.status());
      } catch (error) {
        this.#logger.warn({ err: error }, 'collector status write failed');
      }
    });
    this.#statusChain = run;
    return run;
  }
}
