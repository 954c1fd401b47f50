import type { ConnectionState, SourceName } from '../feeds/types.ts';
import type { Logger } from '../logger.ts';
import type { SourceHealth, SourceState } from '../store/collector-status.ts';

/** Rejected ticks since start, per source and reason (e.g. `binance` → `absurd-jump` → 3). */
export type RejectedCounts = Record<SourceName, Record<string, number>>;

class SourceTracker {
  connection: ConnectionState | null = null;
  detail = 'not connected yet';
  /** Clock time of the last valid message; 0 = none yet. */
  lastMessageAt = 0;
  rejected = 0;
  reconnects = 0;
  everOpen = false;
  readonly reasons = new Map<string, number>();
  /** The counts as of the last rejection summary in the log. */
  readonly reportedReasons = new Map<string, number>();
}

interface SourceHealthOptions {
  /** Sources reported from the start, in this order, before they first connect. */
  sources: readonly SourceName[];
  /** A source with no valid message for this long is reported degraded or down. */
  staleMs: number;
  logger: Logger;
}

/**
 * How each source is doing, by its name: connection state, last valid message, rejected ticks
 * and reconnects, as `/v1/health` reports them. A source not named up front is tracked from its
 * first report on.
 */
export class SourceHealthRegistry {
  readonly #trackers = new Map<SourceName, SourceTracker>();
  readonly #staleMs: number;
  readonly #logger: Logger;
  /** The tracker last looked up: ticks come in runs from one source, so most lookups are this one. */
  #lastSource: SourceName | null = null;
  #lastTracker: SourceTracker | null = null;

  constructor(options: SourceHealthOptions) {
    for (const source of options.sources) this.#trackers.set(source, new SourceTracker());
    this.#staleMs = options.staleMs;
    this.#logger = options.logger;
  }

  #tracker(source: SourceName): SourceTracker {
    if (source === this.#lastSource) return this.#lastTracker as SourceTracker;
    let tracker = this.#trackers.get(source);
    if (tracker === undefined) {
      tracker = new SourceTracker();
      this.#trackers.set(source, tracker);
    }
    this.#lastSource = source;
    this.#lastTracker = tracker;
    return tracker;
  }

  /** A valid message from `source` arrived at clock time `at`. */
  heard(source: SourceName, at: number): void {
    this.#tracker(source).lastMessageAt = at;
  }

  /** A message or tick from `source` was refused; `reason` is a short machine label. */
  rejected(source: SourceName, reason: string): void {
    const tracker = this.#tracker(source);
    tracker.rejected++;
    tracker.reasons.set(reason, (tracker.reasons.get(reason) ?? 0) + 1);
  }

  connectionState(source: SourceName, state: ConnectionState, detail: string): void {
    const tracker = this.#tracker(source);
    if (state === 'open') {
      if (tracker.everOpen && tracker.connection !== 'open') tracker.reconnects++;
      tracker.everOpen = true;
    }
    const changed = tracker.connection !== state;
    tracker.connection = state;
    tracker.detail = detail;
    // The adapters log their own transitions with the reason; this line only ties them to health.
    if (changed) this.#logger.debug({ source, state, detail }, 'source connection state');
  }

  /** Every source's health at clock time `now`, with the rows each prices (`coins`, 0 when absent). */
  report(now: number, coins: ReadonlyMap<SourceName, number> = new Map()): SourceHealth[] {
    const report: SourceHealth[] = [];
    for (const [source, tracker] of this.#trackers) {
      report.push({ ...this.#health(source, tracker, now), coins: coins.get(source) ?? 0 });
    }
    return report;
  }

  #health(source: SourceName, tracker: SourceTracker, now: number): SourceHealth {
    const silentFor = tracker.lastMessageAt === 0 ? null : now - tracker.lastMessageAt;
    const fresh = silentFor !== null && silentFor <= this.#staleMs;
    let state: SourceState;
    let detail = tracker.detail;
    if (tracker.connection === 'open') {
      state = fresh ? 'up' : 'degraded';
      if (!fresh) {
        detail =
          silentFor === null
            ? `${tracker.detail}; no valid message yet`
            : `${tracker.detail}; no valid message for ${Math.round(silentFor / 1000)} s`;
      }
    } else if (
      tracker.connection === null ||
      tracker.connection === 'closed' ||
      tracker.connection === 'refused'
    ) {
      // A refusing source (HTTP 451, 403…) serves nothing however recent its last message; the
      // detail carries its reason.
      state = 'down';
    } else {
      // connecting / stalled / backoff: still serving recent prices, or not.
      state = fresh ? 'degraded' : 'down';
    }
    return {
      source,
      state,
      detail,
      last_message_at: tracker.lastMessageAt === 0 ? null : new Date(tracker.lastMessageAt).toISOString(),
      rejected: tracker.rejected,
      reconnects: tracker.reconnects,
    };
  }

  rejectedCounts(): RejectedCounts {
    const counts: RejectedCounts = {};
    for (const [source, tracker] of this.#trackers) counts[source] = Object.fromEntries(tracker.reasons);
    return counts;
  }

  /** Rejections are summarised per report, not logged per tick: a bad feed can send thousands. */
  logNewRejections(): void {
    for (const [source, tracker] of this.#trackers) {
      const fresh: Record<string, number> = {};
      let any = false;
      for (const [reason, count] of tracker.reasons) {
        const delta = count - (tracker.reportedReasons.get(reason) ?? 0);
        if (delta > 0) {
          fresh[reason] = delta;
          tracker.reportedReasons.set(reason, count);
          any = true;
        }
      }
      if (any) this.#logger.warn({ source, rejected: fresh }, 'rejected bad ticks');
    }
  }
}
