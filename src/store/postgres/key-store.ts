import type pg from 'pg';
import type { ApiKeyRecord } from '../api-key-record.ts';
import type { ApiKeyStore } from '../types.ts';

const columns =
  'id, prefix, hash, org, contact, purpose, rate_limit, created_at, expires_at, revoked_at, last_used_at';

interface ApiKeyRow extends Omit<ApiKeyRecord, 'created_at' | 'expires_at' | 'revoked_at' | 'last_used_at'> {
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

const iso = (at: Date | null) => (at === null ? null : at.toISOString());

function recordOf(row: ApiKeyRow): ApiKeyRecord {
  return {
    ...row,
    created_at: row.created_at.toISOString(),
    expires_at: iso(row.expires_at),
    revoked_at: iso(row.revoked_at),
    last_used_at: iso(row.last_used_at),
  };
}

// Named statements are parsed and planned once per connection: a key missing from an API
// instance's cache costs a lookup by hash, and every instance polls the version about once a second.
const byHash = { name: 'nerkh-api-key-by-hash', text: `SELECT ${columns} FROM api_keys WHERE hash = $1` };
const version = { name: 'nerkh-api-keys-version', text: 'SELECT version FROM api_keys_version WHERE id = 1' };

/**
 * Last use of many keys in one statement. Rows are locked in key order first: API instances
 * flushing overlapping sets of keys at once then wait for each other instead of deadlocking.
 * The forward-only condition is checked again when updating, on the row as it is after any wait.
 */
const recordUse = `
  WITH used AS (
    SELECT id, at FROM unnest($1::text[], $2::timestamptz[]) AS used (id, at)
  ), due AS (
    SELECT k.id, used.at FROM api_keys AS k JOIN used ON used.id = k.id
    WHERE k.last_used_at IS NULL OR k.last_used_at < used.at
    ORDER BY k.id
    FOR UPDATE OF k
  )
  UPDATE api_keys AS k SET last_used_at = due.at FROM due
  WHERE k.id = due.id AND (k.last_used_at IS NULL OR k.last_used_at < due.at)`;

/**
 * Issued keys in PostgreSQL. The api_keys_version counter is bumped by triggers in the transaction
 * that issues or revokes a key, whichever process or tool does it, so every reader learns its
 * cache is stale.
 */
export class PostgresApiKeyStore implements ApiKeyStore {
  constructor(private readonly pool: pg.Pool) {}

  async insertApiKey(record: ApiKeyRecord): Promise<void> {
    await this.pool.query(
      `INSERT INTO api_keys (${columns}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        record.id,
        record.prefix,
        record.hash,
        record.org,
        record.contact,
        record.purpose,
        record.rate_limit,
        record.created_at,
        record.expires_at,
        record.revoked_at,
        record.last_used_at,
      ],
    );
  }

  async findApiKeyByHash(hash: string): Promise<ApiKeyRecord | null> {
    const row = (await this.pool.query<ApiKeyRow>({ ...byHash, values: [hash] })).rows[0];
    return row ? recordOf(row) : null;
  }

  async getApiKey(id: string): Promise<ApiKeyRecord | null> {
    const row = (await this.pool.query<ApiKeyRow>(`SELECT ${columns} FROM api_keys WHERE id = $1`, [id]))
      .rows[0];
    return row ? recordOf(row) : null;
  }

  async listApiKeys(): Promise<ApiKeyRecord[]> {
    const { rows } = await this.pool.query<ApiKeyRow>(
      `SELECT ${columns} FROM api_keys ORDER BY created_at, id`,
    );
    return rows.map(recordOf);
  }

  async revokeApiKey(id: string, now = new Date()): Promise<ApiKeyRecord | null> {
    const { rows } = await this.pool.query<ApiKeyRow>(
      `UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL RETURNING ${columns}`,
      [now.toISOString(), id],
    );
    // Nothing updated: no such key, or revoked before (and the first revocation time stays).
    return rows[0] ? recordOf(rows[0]) : this.getApiKey(id);
  }

  async recordApiKeyUse(lastUsed: ReadonlyMap<string, string>): Promise<void> {
    if (lastUsed.size === 0) return;
    await this.pool.query(recordUse, [[...lastUsed.keys()], [...lastUsed.values()]]);
  }

  async apiKeysVersion(): Promise<number> {
    return Number((await this.pool.query<{ version: string }>(version)).rows[0]?.version ?? 0);
  }
}
