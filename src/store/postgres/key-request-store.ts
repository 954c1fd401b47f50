import type pg from 'pg';
import {
  type KeyRequest,
  type KeyRequestDecision,
  type KeyRequestDraft,
  KeyRequestStateError,
  type KeyRequestStatus,
  newKeyRequest,
} from '../key-request.ts';
import type { KeyRequestStore } from '../types.ts';

const columns =
  'id, name, org, email, purpose, expected_use, client_hash, status, created_at, decided_at, key_id';

interface KeyRequestRow extends Omit<KeyRequest, 'created_at' | 'decided_at'> {
  created_at: Date;
  decided_at: Date | null;
}

function requestOf(row: KeyRequestRow): KeyRequest {
  return {
    ...row,
    created_at: row.created_at.toISOString(),
    decided_at: row.decided_at === null ? null : row.decided_at.toISOString(),
  };
}

export class PostgresKeyRequestStore implements KeyRequestStore {
  constructor(private readonly pool: pg.Pool) {}

  async createKeyRequest(draft: KeyRequestDraft, now = new Date()): Promise<KeyRequest> {
    const request = newKeyRequest(draft, now);
    await this.pool.query(
      `INSERT INTO key_requests (${columns}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        request.id,
        request.name,
        request.org,
        request.email,
        request.purpose,
        request.expected_use,
        request.client_hash,
        request.status,
        request.created_at,
        request.decided_at,
        request.key_id,
      ],
    );
    return request;
  }

  async getKeyRequest(id: string): Promise<KeyRequest | null> {
    const { rows } = await this.pool.query<KeyRequestRow>(
      `SELECT ${columns} FROM key_requests WHERE id = $1`,
      [id],
    );
    return rows[0] ? requestOf(rows[0]) : null;
  }

  async listKeyRequests(filter: { status?: KeyRequestStatus } = {}): Promise<KeyRequest[]> {
    const { rows } = await this.pool.query<KeyRequestRow>(
      `SELECT ${columns} FROM key_requests WHERE $1::text IS NULL OR status = $1 ORDER BY created_at, id`,
      [filter.status ?? null],
    );
    return rows.map(requestOf);
  }

  async countKeyRequests(status: KeyRequestStatus): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>(
      'SELECT count(*)::integer AS n FROM key_requests WHERE status = $1',
      [status],
    );
    return rows[0]?.n ?? 0;
  }

  async countKeyRequestsSince(clientHash: string, since: string): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>(
      'SELECT count(*)::integer AS n FROM key_requests WHERE client_hash = $1 AND created_at >= $2',
      [clientHash, since],
    );
    return rows[0]?.n ?? 0;
  }

  async decideKeyRequest(
    id: string,
    decision: KeyRequestDecision,
    now = new Date(),
  ): Promise<KeyRequest | null> {
    // The status guard makes the decision atomic: of two operators deciding the same request at
    // once, exactly one UPDATE changes the row (the other waits for it, then matches nothing).
    const { rows } = await this.pool.query<KeyRequestRow>(
      `UPDATE key_requests SET status = $1, key_id = $2, decided_at = $3
       WHERE id = $4 AND status = 'pending' RETURNING ${columns}`,
      [decision.status, decision.status === 'approved' ? decision.key_id : null, now.toISOString(), id],
    );
    if (rows[0]) return requestOf(rows[0]);
    const request = await this.getKeyRequest(id);
    if (request === null) return null;
    throw new KeyRequestStateError(`request ${id} is already ${request.status}`);
  }
}
