import {
  type KeyRequest,
  type KeyRequestDecision,
  type KeyRequestDraft,
  KeyRequestStateError,
  type KeyRequestStatus,
  newKeyRequest,
} from '../key-request.ts';
import type { KeyRequestStore } from '../types.ts';
import type { SqliteDatabase } from './database.ts';

const columns =
  'id, name, org, email, purpose, expected_use, client_hash, status, created_at, decided_at, key_id';

export class SqliteKeyRequestStore implements KeyRequestStore {
  readonly #insert;
  readonly #get;
  readonly #listAll;
  readonly #listByStatus;
  readonly #countSince;
  readonly #countByStatus;
  readonly #decide;

  constructor(db: SqliteDatabase) {
    this.#insert = db.prepare<[KeyRequest], never>(
      `INSERT INTO key_requests (${columns}) VALUES
         (@id, @name, @org, @email, @purpose, @expected_use, @client_hash, @status, @created_at, @decided_at, @key_id)`,
    );
    this.#get = db.prepare<[string], KeyRequest>(`SELECT ${columns} FROM key_requests WHERE id = ?`);
    this.#listAll = db.prepare<[], KeyRequest>(`SELECT ${columns} FROM key_requests ORDER BY created_at, id`);
    this.#listByStatus = db.prepare<[string], KeyRequest>(
      `SELECT ${columns} FROM key_requests WHERE status = ? ORDER BY created_at, id`,
    );
    this.#countByStatus = db.prepare<[string], { n: number }>(
      'SELECT count(*) AS n FROM key_requests WHERE status = ?',
    );
    this.#countSince = db.prepare<[string, string], { n: number }>(
      'SELECT count(*) AS n FROM key_requests WHERE client_hash = ? AND created_at >= ?',
    );
    // The status guard in the WHERE clause makes the decision atomic: of two operators deciding
    // the same request at once, exactly one UPDATE changes a row.
    this.#decide = db.prepare<[string, string | null, string, string], never>(
      `UPDATE key_requests SET status = ?, key_id = ?, decided_at = ? WHERE id = ? AND status = 'pending'`,
    );
  }

  async createKeyRequest(draft: KeyRequestDraft, now = new Date()): Promise<KeyRequest> {
    const request = newKeyRequest(draft, now);
    this.#insert.run(request);
    return request;
  }

  async getKeyRequest(id: string): Promise<KeyRequest | null> {
    return this.#get.get(id) ?? null;
  }

  async listKeyRequests(filter: { status?: KeyRequestStatus } = {}): Promise<KeyRequest[]> {
    return filter.status === undefined ? this.#listAll.all() : this.#listByStatus.all(filter.status);
  }

  async countKeyRequests(status: KeyRequestStatus): Promise<number> {
    return this.#countByStatus.get(status)?.n ?? 0;
  }

  async countKeyRequestsSince(clientHash: string, since: string): Promise<number> {
    return this.#countSince.get(clientHash, since)?.n ?? 0;
  }

  async decideKeyRequest(
    id: string,
    decision: KeyRequestDecision,
    now = new Date(),
  ): Promise<KeyRequest | null> {
    const keyId = decision.status === 'approved' ? decision.key_id : null;
    const changed = this.#decide.run(decision.status, keyId, now.toISOString(), id).changes;
    const request = this.#get.get(id);
    if (!request) return null;
    if (changed === 0) throw new KeyRequestStateError(`request ${id} is already ${request.status}`);
    return request;
  }
}
