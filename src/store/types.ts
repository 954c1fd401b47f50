import type { Snapshot, SnapshotDraft } from '../domain/rates.ts';

/**
 * Storage capabilities, one interface each (design §7), with a SQLite implementation (the embedded
 * default) and an in-memory one for tests. Every method is async so a networked store fits too.
 */

export interface SnapshotStore {
  /** Commits one snapshot atomically and prunes beyond the retention bound; returns it with its id. */
  commitSnapshot(draft: SnapshotDraft): Promise<Snapshot>;
  /** The last committed snapshot, or null before the first commit. */
  latestSnapshot(): Promise<Snapshot | null>;
  /** Id of the last committed snapshot (0 before the first): a cheap poll for readers in other processes. */
  latestSnapshotId(): Promise<number>;
}

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
}

export interface CollectorStatus {
  /** When the collector wrote this report (ISO 8601); a stale report means a dead collector. */
  reported_at: string;
  /** Refresh interval the collector runs with, in seconds. */
  refresh_seconds: number;
  sources: SourceHealth[];
}

/** The collector reports its health here so API-only instances can serve it (design §7). */
export interface CollectorStatusStore {
  putCollectorStatus(status: CollectorStatus): Promise<void>;
  getCollectorStatus(): Promise<CollectorStatus | null>;
}

export type KeyRequestStatus = 'pending' | 'approved' | 'rejected';

/** What the contact page collects (design §4: keys are issued by hand, on request). */
export interface KeyRequestDraft {
  name: string;
  org: string;
  email: string;
  purpose: string;
  expected_use: string | null;
  /** Keyed hash of the requester's IP (never the IP itself), for the per-client submission limit. */
  client_hash: string | null;
}

export interface KeyRequest extends KeyRequestDraft {
  id: string;
  status: KeyRequestStatus;
  created_at: string;
  decided_at: string | null;
  /** The issued key's id once approved. */
  key_id: string | null;
}

export type KeyRequestDecision = { status: 'approved'; key_id: string } | { status: 'rejected' };

/** Key requests from the contact page, read and decided by the operator (`nerkh requests`). */
export interface KeyRequestStore {
  createKeyRequest(draft: KeyRequestDraft, now?: Date): Promise<KeyRequest>;
  getKeyRequest(id: string): Promise<KeyRequest | null>;
  /** Oldest first. */
  listKeyRequests(filter?: { status?: KeyRequestStatus }): Promise<KeyRequest[]>;
  /** Requests stored for this client since `since` (ISO 8601): the per-client limit reads this. */
  countKeyRequestsSince(clientHash: string, since: string): Promise<number>;
  /**
   * Moves a pending request to approved or rejected. Returns null when no request has that id;
   * throws KeyRequestStateError when it was already decided (so two operators never both decide).
   */
  decideKeyRequest(id: string, decision: KeyRequestDecision, now?: Date): Promise<KeyRequest | null>;
}

export class KeyRequestStateError extends Error {
  override name = 'KeyRequestStateError';
}

/** An issued API key as stored (design §4): never the key itself, only its SHA-256 hash. */
export interface ApiKeyRecord {
  /** Operator-facing id, `key_` and 12 lowercase hex digits; what `nerkh keys revoke` takes. */
  id: string;
  /** First characters of the key (`nerkh_AbC123`), enough to recognise it in a list. */
  prefix: string;
  /** Lowercase hex SHA-256 of the whole key. */
  hash: string;
  org: string;
  contact: string | null;
  purpose: string;
  /** Per-key override of NERKH_RATE_LIMIT (requests per window), or null for the default. */
  rate_limit: number | null;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
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
  /** Records last use in one batch (key id → ISO time); only ever moves last_used_at forward. */
  recordApiKeyUse(lastUsed: ReadonlyMap<string, string>): Promise<void>;
  /**
   * A number that changes whenever a key is issued, revoked or changed by any process (not on
   * last-use updates); API instances poll it to drop their key caches.
   */
  apiKeysVersion(): Promise<number>;
}
