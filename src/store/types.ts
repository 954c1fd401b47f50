import type { CollectorStatus } from '../collector/collector-status.ts';
import type { Snapshot, SnapshotDraft } from '../domain/rates.ts';
import type { ApiKeyRecord } from '../keys/api-key-record.ts';
import type {
  KeyRequest,
  KeyRequestDecision,
  KeyRequestDraft,
  KeyRequestStatus,
} from '../keys/key-request.ts';

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

/** The collector reports its health here so API-only instances can serve it (design §7). */
export interface CollectorStatusStore {
  putCollectorStatus(status: CollectorStatus): Promise<void>;
  getCollectorStatus(): Promise<CollectorStatus | null>;
}

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
