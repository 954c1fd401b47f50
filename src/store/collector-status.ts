/**
 * What the collector reports about itself: it writes this to the store so API-only instances, which
 * run no collector, can serve it in `/v1/health`.
 */

export type SourceState = 'up' | 'degraded' | 'down';

export interface SourceHealth {
  source: string;
  state: SourceState;
  /** One line a person can act on, e.g. "reconnecting in 4.2 s after: stalled 30 s". */
  detail: string;
  /** Time of the last valid message from the source (ISO 8601), or null if none yet. */
  last_message_at: string | null;
  /** Ticks rejected as bad since the collector started. */
  rejected: number;
  reconnects: number;
  /**
   * Rows of the rates this source prices now (the USDT row counts for tether's source). Absent in
   * reports of collectors older than the sources file.
   */
  coins?: number;
}

/**
 * How the collector's last snapshot commit ended: a failed one is reported at once (in
 * `/v1/health` and on the status page), not only through the snapshot's age.
 */
export interface CommitOutcome {
  outcome: 'ok' | 'failed';
  /** When the commit ended (ISO 8601). */
  at: string;
  /** Build plus the store's write, in milliseconds. */
  duration_ms: number;
  /**
   * A failed commit's error class and code (`SqliteError SQLITE_FULL`, `DatabaseError 25006`);
   * never its message, which may carry a connection string or a path. Null when it succeeded.
   */
  error: string | null;
  /** When the last commit that succeeded ended (ISO 8601), or null if none has in this run. */
  last_ok_at: string | null;
}

/**
 * A source's price of a coin held at a unit-sized level (docs/operations.md#held-prices): not
 * published until another source quotes the same level or the operator accepts it.
 */
export interface HeldPrice {
  symbol: string;
  currency: 'usdt' | 'toman';
  source: string;
  /** The level the source quotes now. */
  price: number;
  /** What it was compared with: the source's own last accepted price, or the other sources' median. */
  reference: number;
  reason: 'own-price' | 'other-sources';
  /** When the hold began (ISO 8601). */
  since: string;
  /** The source pricing the coin's row meanwhile; the held source itself when no other can (its last price). */
  served_by: string | null;
}

export interface CollectorStatus {
  /** When the collector wrote this report (ISO 8601); a stale report means a dead collector. */
  reported_at: string;
  /** Refresh interval the collector runs with, in seconds. */
  refresh_seconds: number;
  sources: SourceHealth[];
  /** The last commit's outcome; absent before this collector's first commit (and in older reports). */
  last_commit?: CommitOutcome;
  /** Prices held at a unit-sized level now; absent in reports of older collectors. */
  held?: HeldPrice[];
}
