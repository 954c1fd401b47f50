import type { HistoryRange, PricePoint } from '../domain/price-history.ts';
import type { Snapshot, SnapshotDraft } from '../domain/rates.ts';
import type { Logger } from '../logger.ts';
import type { ApiKeyRecord } from './api-key-record.ts';
import type { CollectorStatus } from './collector-status.ts';
import type { KeyRequest, KeyRequestDecision, KeyRequestDraft, KeyRequestStatus } from './key-request.ts';
import type { KeyDayUsage, KeyUsageQuery } from './key-usage.ts';
import type { PriceAcceptance, PriceAcceptanceDraft } from './price-acceptance.ts';

/**
 * Storage capabilities, one interface each (docs/architecture.md#backends), with a SQLite implementation (the embedded
 * default) and an in-memory one for tests. Every method is async so a networked store fits too.
 */

export interface SnapshotStore {
  /** Commits one snapshot atomically and prunes beyond the retention bound; returns it with its id. */
  commitSnapshot(draft: SnapshotDraft): Promise<Snapshot>;
  /** The last committed snapshot, or null before the first commit. */
  latestSnapshot(): Promise<Snapshot | null>;
  /** Id of the last committed snapshot (0 before the first): a cheap poll for readers in other processes. */
  latestSnapshotId(): Promise<number>;
  /**
   * The sell prices of `symbol` (exactly as stored, upper case) in the retained snapshots inside
   * `range`, oldest first, thinned by `downsample` (src/domain/price-history.ts); empty when none.
   */
  priceHistory(symbol: string, range: HistoryRange): Promise<PricePoint[]>;
  /** The same for every symbol at once (one read, for the coins list's sparklines), keyed by symbol. */
  priceHistories(range: HistoryRange): Promise<Map<string, PricePoint[]>>;
}

/** The collector reports its health here so API-only instances can serve it (docs/architecture.md#backends). */
export interface CollectorStatusStore {
  putCollectorStatus(status: CollectorStatus): Promise<void>;
  getCollectorStatus(): Promise<CollectorStatus | null>;
}

/**
 * The operator's acceptances of held prices (`nerkh prices accept`), written by the CLI and read by
 * the collector, kept as the audit trail (docs/operations.md#held-prices).
 */
export interface PriceAcceptanceStore {
  recordPriceAcceptance(draft: PriceAcceptanceDraft, now?: Date): Promise<PriceAcceptance>;
  /** Acceptances with an id above `afterId` recorded at or after `since` (ISO 8601), oldest first. */
  priceAcceptances(query: { afterId?: number; since?: string }): Promise<PriceAcceptance[]>;
}

/** Key requests from the contact page, read and decided by the operator (`nerkh requests`). */
export interface KeyRequestStore {
  createKeyRequest(draft: KeyRequestDraft, now?: Date): Promise<KeyRequest>;
  getKeyRequest(id: string): Promise<KeyRequest | null>;
  /** Oldest first. */
  listKeyRequests(filter?: { status?: KeyRequestStatus }): Promise<KeyRequest[]>;
  /** How many requests have this status: the pending ones are a gauge (docs/operations.md#key-requests). */
  countKeyRequests(status: KeyRequestStatus): Promise<number>;
  /** Requests stored for this client since `since` (ISO 8601): the per-client limit reads this. */
  countKeyRequestsSince(clientHash: string, since: string): Promise<number>;
  /**
   * Moves a pending request to approved or rejected. Returns null when no request has that id;
   * throws KeyRequestStateError when it was already decided (so two operators never both decide).
   */
  decideKeyRequest(id: string, decision: KeyRequestDecision, now?: Date): Promise<KeyRequest | null>;
}

/** Issued keys. Writers (the CLI) may run in other processes than readers (API instances). */
export interface ApiKeyStore {
  insertApiKey(record: ApiKeyRecord): Promise<void>;
  findApiKeyByHash(hash: string): Promise<ApiKeyRecord | null>;
  getApiKey(id: string): Promise<ApiKeyRecord | null>;
  /** Oldest first. */
  listApiKeys(): Promise<ApiKeyRecord[]>;
  /** Sets revoked_at once; returns the record (null when no key has that id). */
  revokeApiKey(id: string, now?: Date): Promise<ApiKeyRecord | null>;
  /**
   * Records last use in one batch (key id → ISO time), only ever moving last_used_at forward, and
   * adds `usage` (at most one entry per key and day) to the stored counts, in one transaction.
   * Entries of keys the store does not hold are ignored.
   */
  recordApiKeyUse(lastUsed: ReadonlyMap<string, string>, usage?: readonly KeyDayUsage[]): Promise<void>;
  /** Stored usage, by day then key id, oldest day first. */
  apiKeyUsage(query: KeyUsageQuery): Promise<KeyDayUsage[]>;
  /**
   * A number that changes whenever a key is issued, revoked or changed by any process (not on
   * last-use updates); API instances poll it to drop their key caches.
   */
  apiKeysVersion(): Promise<number>;
}

/** What a process learns has changed in a store other processes write to. */
export type StoreChange = 'snapshot' | 'keys';

/**
 * Changes committed by any process, as they happen: a snapshot committed, a key issued, revoked or
 * edited. Readers still poll; the feed only makes them read at once. After its connection comes
 * back it reports every kind once, since changes made meanwhile were not heard of.
 */
export interface ChangeFeed {
  /** Calls `listener` after each change of `kind`; returns the function that removes it. */
  onChange(kind: StoreChange, listener: () => void): () => void;
  close(): Promise<void>;
}

/** The instance leading the collector, as the lease records it. */
export interface CollectorLeader {
  /** Who holds the lease: `hostname:pid`, or NERKH_INSTANCE_ID. */
  instance: string;
  /** Grows by one at every change of holder; commits are accepted under the current term only. */
  term: number;
  /** When this term began (ISO 8601). */
  since: string;
  /** When the lease runs out unless its holder renews it (ISO 8601). */
  expiresAt: string;
  /** False once the lease ran out: its holder stopped renewing it, and no one leads until a standby claims it. */
  live: boolean;
}

/**
 * The lease that elects, among the instances running a collector on one shared store, the one that
 * commits. Time is the store's clock, so the instances' clocks do not matter.
 */
export interface CollectorLease {
  /**
   * Renews the lease if `instance` holds it under `heldTerm`, else takes it under a new term if it
   * ran out; in both cases it then lasts `ttlMs`. Returns whether `instance` holds it now, and the
   * lease as it is.
   */
  claim(
    instance: string,
    heldTerm: number | null,
    ttlMs: number,
  ): Promise<{ held: boolean; leader: CollectorLeader }>;
  /** Ends the lease at once if `instance` still holds it under `term`, so a standby need not wait it out. */
  release(instance: string, term: number): Promise<void>;
  /** The lease as it is, or null before any instance ever held it. */
  leader(): Promise<CollectorLeader | null>;
  /**
   * The stores the leader of `term` commits through: each commit and health report is written only
   * while `term` is the current term, else it fails with StaleTermError (a deposed leader's late write).
   */
  storeFor(term: number): SnapshotStore & CollectorStatusStore & PriceAcceptanceStore;
}

/** Every storage capability, on the one backend the configuration selects. */
export interface OpenedStore {
  snapshots: SnapshotStore & CollectorStatusStore & PriceAcceptanceStore;
  keys: ApiKeyStore;
  keyRequests: KeyRequestStore;
  /**
   * The lease electing the one collector that commits, when several instances may run one on this
   * store (PostgreSQL). Absent for SQLite: one process owns the file, and its collector always leads.
   */
  collectorLease?: CollectorLease;
  /**
   * Opens a feed of the changes any process commits, on a connection of its own (PostgreSQL
   * LISTEN/NOTIFY); the caller closes it. Absent for SQLite, whose readers learn of changes by polling.
   */
  openChangeFeed?(logger: Logger): Promise<ChangeFeed>;
  /** Where the data is kept, for the start-up log: a file path, never a password. */
  location: string;
  /** Releases the backend once nothing uses the stores any more. */
  close(): Promise<void>;
}
