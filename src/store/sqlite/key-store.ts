import type { ApiKeyRecord } from '../api-key-record.ts';
import type { KeyDayUsage, KeyUsageQuery } from '../key-usage.ts';
import type { ApiKeyStore } from '../types.ts';
import type { SqliteDatabase } from './database.ts';
import { SqliteStatementThread } from './statement-thread.ts';

const columns =
  'id, prefix, hash, org, contact, purpose, rate_limit, created_at, expires_at, revoked_at, last_used_at';

/**
 * Issued keys in SQLite. The CLI writes from its own process while servers read: WAL and
 * busy_timeout (set in openSqlite) let both proceed, and the api_keys_version counter, bumped by
 * triggers, tells every reader that its cache is stale. Last-use times are written on a thread of
 * their own (statement-thread.ts), through a second connection to the same file.
 */
export class SqliteApiKeyStore implements ApiKeyStore {
  readonly #insert;
  readonly #byHash;
  readonly #byId;
  readonly #list;
  readonly #revoke;
  readonly #version;
  readonly #recordUse;
  readonly #usageSince;
  readonly #keyUsageSince;

  constructor(db: SqliteDatabase) {
    this.#insert = db.prepare<[ApiKeyRecord], never>(
      `INSERT INTO api_keys (${columns}) VALUES
         (@id, @prefix, @hash, @org, @contact, @purpose, @rate_limit, @created_at, @expires_at, @revoked_at, @last_used_at)`,
    );
    this.#byHash = db.prepare<[string], ApiKeyRecord>(`SELECT ${columns} FROM api_keys WHERE hash = ?`);
    this.#byId = db.prepare<[string], ApiKeyRecord>(`SELECT ${columns} FROM api_keys WHERE id = ?`);
    this.#list = db.prepare<[], ApiKeyRecord>(`SELECT ${columns} FROM api_keys ORDER BY created_at, id`);
    this.#revoke = db.prepare<[string, string], never>(
      'UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL',
    );
    this.#version = db.prepare<[], { version: number }>('SELECT version FROM api_keys_version WHERE id = 1');
    this.#recordUse = new SqliteStatementThread(db.name, [
      'UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)',
      // A key the file does not hold is skipped rather than failing the batch (the foreign key).
      `INSERT INTO api_key_usage (key_id, day, admitted, refused)
         SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM api_keys WHERE id = ?)
         ON CONFLICT (key_id, day) DO UPDATE
         SET admitted = admitted + excluded.admitted, refused = refused + excluded.refused`,
    ]);
    const usageColumns = 'key_id AS keyId, day, admitted, refused';
    this.#usageSince = db.prepare<[string], KeyDayUsage>(
      `SELECT ${usageColumns} FROM api_key_usage WHERE day >= ? ORDER BY day, key_id`,
    );
    this.#keyUsageSince = db.prepare<[string, string], KeyDayUsage>(
      `SELECT ${usageColumns} FROM api_key_usage WHERE key_id = ? AND day >= ? ORDER BY day`,
    );
  }

  async insertApiKey(record: ApiKeyRecord): Promise<void> {
    this.#insert.run(record);
  }

  async findApiKeyByHash(hash: string): Promise<ApiKeyRecord | null> {
    return this.#byHash.get(hash) ?? null;
  }

  async getApiKey(id: string): Promise<ApiKeyRecord | null> {
    return this.#byId.get(id) ?? null;
  }

  async listApiKeys(): Promise<ApiKeyRecord[]> {
    return this.#list.all();
  }

  async revokeApiKey(id: string, now = new Date()): Promise<ApiKeyRecord | null> {
    this.#revoke.run(now.toISOString(), id);
    return this.#byId.get(id) ?? null;
  }

  async recordApiKeyUse(
    lastUsed: ReadonlyMap<string, string>,
    usage: readonly KeyDayUsage[] = [],
  ): Promise<void> {
    if (lastUsed.size === 0 && usage.length === 0) return;
    const uses: [string, string, string][] = [];
    for (const [id, at] of lastUsed) uses.push([at, id, at]);
    const counts = usage.map(({ keyId, day, admitted, refused }) => [keyId, day, admitted, refused, keyId]);
    await this.#recordUse.run([uses, counts]);
  }

  async apiKeyUsage(query: KeyUsageQuery): Promise<KeyDayUsage[]> {
    return query.keyId === undefined
      ? this.#usageSince.all(query.since)
      : this.#keyUsageSince.all(query.keyId, query.since);
  }

  async apiKeysVersion(): Promise<number> {
    return this.#version.get()?.version ?? 0;
  }

  /** Waits for the last-use writes under way and stops their thread. */
  close(): Promise<void> {
    return this.#recordUse.close();
  }
}
