/** The published shapes of spec §2: one rate record per coin, and a committed snapshot. */

export interface RateRow {
  symbol: string;
  name_fa: string;
  sell_usdt: number;
  sell_irt: number | null;
  change_24h: number | null;
  /** Time of the last tick that moved this coin's price (ISO 8601), not of the snapshot. */
  as_of: string;
  url: string;
}

/** What the collector commits; the store adds the id. */
export interface SnapshotDraft {
  /** Moment of the commit (ISO 8601): the spec's `updated_at`. */
  updated_at: string;
  /** Tether in toman, or null while the toman source has not answered. */
  usdt_irt: number | null;
  /** Sorted by symbol. */
  rates: RateRow[];
}

export interface Snapshot extends SnapshotDraft {
  /** Monotonic commit number; the HTTP edge derives its ETag from it. */
  id: number;
}
