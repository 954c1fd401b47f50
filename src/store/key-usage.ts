/**
 * Requests one key made on one UTC day: those its rate limit admitted and those it refused (429).
 * Requests with an invalid key have no key to count against and are not counted here
 * (docs/operations.md#usage-per-key).
 */
export interface KeyDayUsage {
  keyId: string;
  /** The UTC day, `YYYY-MM-DD`. */
  day: string;
  admitted: number;
  refused: number;
}

/** Which stored usage to read: every key's or one key's, from the UTC day `since` (`YYYY-MM-DD`) on. */
export interface KeyUsageQuery {
  keyId?: string;
  since: string;
}
