import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Collector } from '../collector/collector.ts';
import type { SourceState } from '../store/collector-status.ts';

const sourceStates: readonly SourceState[] = ['up', 'degraded', 'down'];

/**
 * The collector's metrics (docs/operations.md#metrics), on the registry the composition root gives it:
 * commits counted as they end, coins counted as they fail over, and the sources' state, reconnects,
 * rejected ticks and coins read from the running collector when Prometheus scrapes. While this
 * instance runs no collector (it stands by, or has the `api` role) the source series are absent.
 */
export class CollectorMetrics {
  readonly #commits: Counter<'outcome'>;
  readonly #commitSeconds: Histogram<'outcome'>;
  readonly #lastSuccess: Gauge;
  readonly #failovers: Counter<'symbol' | 'currency'>;
  readonly #returns: Counter<'symbol' | 'currency'>;
  #collector: Collector | null = null;
  #leading: (() => boolean) | null = null;

  constructor(registry: Registry) {
    const registers = [registry];
    this.#commits = new Counter({
      name: 'nerkh_snapshot_commits_total',
      help: 'Snapshot commits by outcome: ok, or failed (the store refused it; the last good snapshot stays served).',
      labelNames: ['outcome'],
      registers,
    });
    this.#commitSeconds = new Histogram({
      name: 'nerkh_snapshot_commit_duration_seconds',
      help: 'Time to build a snapshot and commit it to the store, by outcome.',
      labelNames: ['outcome'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.#lastSuccess = new Gauge({
      name: 'nerkh_snapshot_last_commit_success_timestamp_seconds',
      help: "Unix time of this instance's collector's last successful snapshot commit.",
      registers,
    });
    this.#failovers = new Counter({
      name: 'nerkh_coin_failovers_total',
      help: 'Times a coin moved to a later source of its route because the one serving it became unusable.',
      labelNames: ['symbol', 'currency'],
      registers,
    });
    this.#returns = new Counter({
      name: 'nerkh_coin_returns_total',
      help: 'Times a coin went back to an earlier source of its route once that one proved itself again.',
      labelNames: ['symbol', 'currency'],
      registers,
    });
    const metrics = this;
    new Gauge({
      name: 'nerkh_collector_leader',
      help: "1 while this instance's collector leads (holds the collector lease, or owns an embedded store), else 0.",
      registers,
      collect() {
        if (metrics.#leading !== null) this.set(metrics.#leading() ? 1 : 0);
      },
    });
    new Gauge({
      name: 'nerkh_source_state',
      help: 'State of each source: 1 for its current state (up, degraded or down), 0 for the others.',
      labelNames: ['source', 'state'],
      registers,
      collect() {
        this.reset();
        for (const source of metrics.#collector?.status().sources ?? []) {
          for (const state of sourceStates)
            this.set({ source: source.source, state }, source.state === state ? 1 : 0);
        }
      },
    });
    new Gauge({
      name: 'nerkh_source_coins',
      help: 'Rows of the rates each source prices now (the USDT row counts for tether’s source).',
      labelNames: ['source'],
      registers,
      collect() {
        this.reset();
        for (const source of metrics.#collector?.status().sources ?? []) {
          this.set({ source: source.source }, source.coins ?? 0);
        }
      },
    });
    new Counter({
      name: 'nerkh_source_reconnects_total',
      help: 'Reconnections of each source since the collector started.',
      labelNames: ['source'],
      registers,
      collect() {
        this.reset();
        for (const source of metrics.#collector?.status().sources ?? []) {
          this.inc({ source: source.source }, source.reconnects);
        }
      },
    });
    new Gauge({
      name: 'nerkh_source_deviation_ratio',
      help: 'Each source’s ask on a coin two or more sources quote, relative to the others (the median of all, or the other one): ask ÷ reference − 1. 0 in line; −0.9 a tenth (a toman price read as rial).',
      labelNames: ['symbol', 'currency', 'source'],
      registers,
      collect() {
        this.reset();
        for (const deviation of metrics.#collector?.deviations() ?? []) {
          this.set(
            { symbol: deviation.symbol, currency: deviation.currency, source: deviation.source },
            deviation.ratio,
          );
        }
      },
    });
    new Gauge({
      name: 'nerkh_price_held_since_timestamp_seconds',
      help: 'Since when (Unix time) each source’s price of a coin has been held at a unit-sized level (×10 or more, ÷10 or less), unpublished until another source or the operator confirms it; absent when nothing is held.',
      labelNames: ['symbol', 'currency', 'source'],
      registers,
      collect() {
        this.reset();
        for (const held of metrics.#collector?.held() ?? []) {
          this.set(
            { symbol: held.symbol, currency: held.currency, source: held.source },
            Date.parse(held.since) / 1000,
          );
        }
      },
    });
    new Counter({
      name: 'nerkh_source_deviating_quotes_total',
      help: 'Accepted quotes of each source that were further from the other sources quoting the same coin than the allowed deviation (deviation.max_pct, default 5 %).',
      labelNames: ['source'],
      registers,
      collect() {
        this.reset();
        for (const [source, count] of Object.entries(metrics.#collector?.deviatingQuotes() ?? {})) {
          this.inc({ source }, count);
        }
      },
    });
    new Counter({
      name: 'nerkh_source_rejected_ticks_total',
      help: 'Ticks of each source rejected as bad since the collector started, by reason.',
      labelNames: ['source', 'reason'],
      registers,
      collect() {
        this.reset();
        const counts = metrics.#collector?.rejectedCounts() ?? {};
        for (const [source, reasons] of Object.entries(counts)) {
          for (const [reason, count] of Object.entries(reasons)) this.inc({ source, reason }, count);
        }
      },
    });
  }

  /** Says how to tell whether this instance leads the collector (the election, or always for an embedded store). */
  watchLeadership(leading: () => boolean): void {
    this.#leading = leading;
  }

  /** Follows a running collector until the returned function is called (when it stops). */
  watch(collector: Collector): () => void {
    this.#collector = collector;
    const unsubscribe = [
      collector.onCommit((snapshot, info) => {
        this.#commits.inc({ outcome: 'ok' });
        this.#commitSeconds.observe({ outcome: 'ok' }, info.durationMs / 1000);
        this.#lastSuccess.set(Date.parse(snapshot.updated_at) / 1000);
      }),
      collector.onCommitFailure((failure) => {
        this.#commits.inc({ outcome: 'failed' });
        this.#commitSeconds.observe({ outcome: 'failed' }, failure.durationMs / 1000);
      }),
      collector.onRouteMoves((moves) => {
        for (const move of moves) {
          const counter = move.kind === 'failover' ? this.#failovers : this.#returns;
          counter.inc({ symbol: move.symbol, currency: move.currency });
        }
      }),
    ];
    return () => {
      for (const stop of unsubscribe) stop();
      if (this.#collector === collector) this.#collector = null;
    };
  }
}
