import type { ApiKeyRecord } from '../api-key-record.ts';
import type { KeyDayUsage, KeyUsageQuery } from '../key-usage.ts';
import type { ApiKeyStore } from '../types.ts';

/** In-memory twin of SqliteApiKeyStore for tests: same contract, nothing survives the process. */
export class MemoryApiKeyStore implements ApiKeyStore {
  readonly #byId = new Map<string, ApiKeyRecord>();
  readonly #idByHash = new Map<string, string>();
  /** `${keyId} ${day}` → that key's usage on that day. */
  readonly #usage = new Map<string, KeyDayUsage>();
  #version = 0;

  async insertApiKey(record: ApiKeyRecord): Promise<void> {
    if (this.#byId.has(record.id) || this.#idByHash.has(record.hash)) {
      throw new Error(`API key ${record.id} already exists`);
    }
    this.#byId.set(record.id, structuredClone(record));
    this.#idByHash.set(record.hash, record.id);
    this.#version++;
  }

  async findApiKeyByHash(hash: string): Promise<ApiKeyRecord | null> {
    const id = this.#idByHash.get(hash);
    return id === undefined ? null : this.getApiKey(id);
  }

  async getApiKey(id: string): Promise<ApiKeyRecord | null> {
    const record = this.#byId.get(id);
    return record ? structuredClone(record) : null;
  }

  async listApiKeys(): Promise<ApiKeyRecord[]> {
    return [...this.#byId.values()]
      .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id))
      .map((record) => structuredClone(record));
  }

  async revokeApiKey(id: string, now = new Date()): Promise<ApiKeyRecord | null> {
    const record = this.#byId.get(id);
    if (!record) return null;
    if (record.revoked_at === null) {
      record.revoked_at = now.toISOString();
      this.#version++;
    }
    return structuredClone(record);
  }

  async recordApiKeyUse(
    lastUsed: ReadonlyMap<string, string>,
    usage: readonly KeyDayUsage[] = [],
  ): Promise<void> {
    for (const [id, at] of lastUsed) {
      const record = this.#byId.get(id);
      if (record && (record.last_used_at === null || record.last_used_at < at)) record.last_used_at = at;
    }
    for (const { keyId, day, admitted, refused } of usage) {
      if (!this.#byId.has(keyId)) continue;
      const stored = this.#usage.get(`${keyId} ${day}`);
      if (stored === undefined) this.#usage.set(`${keyId} ${day}`, { keyId, day, admitted, refused });
      else {
        stored.admitted += admitted;
        stored.refused += refused;
      }
    }
  }

  async apiKeyUsage(query: KeyUsageQuery): Promise<KeyDayUsage[]> {
    return [...this.#usage.values()]
      .filter((row) => row.day >= query.since && (query.keyId === undefined || row.keyId === query.keyId))
      .sort((a, b) => a.day.localeCompare(b.day) || a.keyId.localeCompare(b.keyId))
      .map((row) => ({ ...row }));
  }

  async apiKeysVersion(): Promise<number> {
    return this.#version;
  }
}
