import type pg from 'pg';
import type { ApiKeyRecord } from '../api-key-record.ts';
import type { KeyDayUsage, KeyUsageQuery } from '../key-usage.ts';
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
 * Last use of many keys and their usage counts in one statement (so in one transaction). Key rows
 * are locked in key order first, and usage rows are inserted in key and day order: API instances
 * flushing overlapping sets of keys at once then wait for each other instead of deadlocking. The
 * key rows are locked FOR NO KEY UPDATE, as an UPDATE of other columns than the key locks them,
 * which leaves the usage rows' foreign-key checks (FOR KEY SHARE) free to proceed
 * (https://www.postgresql.org/docs/current/explicit-locking.html#LOCKING-ROWS). The forward-only
 * condition is checked again when updating, on the row as it is after any wait. Usage of keys the
 * database does not hold is skipped (the join) rather than failing the flush; the caller sends at
 * most one entry per key and day, as ON CONFLICT DO UPDATE requires.
 */
const recordUse = `
  WITH used AS (
    SELECT id, at FROM unnest($1::text[], $2::timestamptz[]) AS used (id, at)
  ), due AS (
    SELECT k.id, used.at FROM api_keys AS k JOIN used ON used.id = k.id
    WHERE k.last_used_at IS NULL OR k.last_used_at < used.at
    ORDER BY k.id
    FOR NO KEY UPDATE OF k
  ), touched AS (
    UPDATE api_keys AS k SET last_used_at = due.at FROM due
    WHERE k.id = due.id AND (k.last_used_at IS NULL OR k.last_used_at < due.at)
  )
  INSERT INTO api_key_usage (key_id, day, admitted, refused)
  SELECT counted.key_id, counted.day, counted.admitted, counted.refused
  FROM unnest($3::text[], $4::date[], $5::bigint[], $6::bigint[]) AS counted (key_id, day, admitted, refused)
  JOIN api_keys AS k ON k.id = counted.key_id
  ORDER BY counted.key_id, counted.day
  ON CONFLICT (key_id, day) DO UPDATE
  SET admitted = api_key_usage.admitted + excluded.admitted,
      refused = api_key_usage.refused + excluded.refused`;

interface UsageRow {
  keyId: string;
  day: string;
  admitted: string;
  refused: string;
}

/** Days as `YYYY-MM-DD` text (never a Date at local midnight), counts as numbers. */
const usageColumns = `key_id AS "keyId", to_char(day, 'YYYY-MM-DD') AS day, admitted, refused`;

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

  async recordApiKeyUse(
    lastUsed: ReadonlyMap<string, string>,
    usage: readonly KeyDayUsage[] = [],
  ): Promise<void> {
    if (lastUsed.size === 0 && usage.length === 0) return;
    await this.pool.query(recordUse, [
      [...lastUsed.keys()],
      [...lastUsed.values()],
      usage.map((entry) => entry.keyId),
      usage.map((entry) => entry.day),
      usage.map((entry) => entry.admitted),
      usage.map((entry) => entry.refused),
    ]);
  }

  async apiKeyUsage(query: KeyUsageQuery): Promise<KeyDayUsage[]> {
    const { rows } =
      query.keyId === undefined
        ? await this.pool.query<UsageRow>(
            `SELECT ${usageColumns} FROM api_key_usage WHERE day >= $1 ORDER BY day, key_id`,
            [query.since],
          )
        : await this.pool.query<UsageRow>(
            `SELECT ${usageColumns} FROM api_key_usage WHERE key_id = $1 AND day >= $2 ORDER BY day`,
            [query.keyId, query.since],
          );
    return rows.map((row) => ({ ...row, admitted: Number(row.admitted), refused: Number(row.refused) }));
  }

  async apiKeysVersion(): Promise<number> {
    return Number((await this.pool.query<{ version: string }>(version)).rows[0]?.version ?? 0);
  }
}
