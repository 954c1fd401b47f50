import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { hashApiKey } from '../../src/keys/api-key.ts';
import { issueApiKey } from '../../src/keys/issue-key.ts';
import { MemoryApiKeyStore } from '../../src/store/memory/key-store.ts';
import { openStore } from '../../src/store/open-store.ts';
import { openSqlite } from '../../src/store/sqlite/database.ts';
import { SqliteApiKeyStore } from '../../src/store/sqlite/key-store.ts';
import type { ApiKeyStore } from '../../src/store/types.ts';

interface Harness {
  open(): ApiKeyStore;
  close(): void;
}

/** The contract every ApiKeyStore keeps, run against SQLite and memory alike. */
function describeApiKeyStoreContract(name: string, harness: Harness) {
  describe(`${name} (ApiKeyStore contract)`, () => {
    let store: ApiKeyStore;
    beforeEach(() => {
      store = harness.open();
    });
    afterEach(() => harness.close());

    it('finds an issued key by the hash of the plain key and never stores the key', async () => {
      const { key, record } = await issueApiKey(store, {
        org: 'Acme',
        purpose: 'price board',
        contact: 'ops@acme.test',
      });
      const found = await store.findApiKeyByHash(hashApiKey(key));
      expect(found).toEqual(record);
      expect(JSON.stringify(await store.listApiKeys())).not.toContain(key);
      expect(await store.findApiKeyByHash(hashApiKey(`${key}x`))).toBeNull();
    });

    it('lists keys oldest first', async () => {
      const first = await issueApiKey(store, { org: 'A', purpose: 'p' }, new Date('2025-01-01T00:00:00Z'));
      const second = await issueApiKey(store, { org: 'B', purpose: 'p' }, new Date('2025-01-02T00:00:00Z'));
      expect((await store.listApiKeys()).map((k) => k.id)).toEqual([first.record.id, second.record.id]);
    });

    it('revokes once, keeps the first revocation time, and bumps the version', async () => {
      const { record } = await issueApiKey(store, { org: 'A', purpose: 'p' });
      const before = await store.apiKeysVersion();
      const revoked = await store.revokeApiKey(record.id, new Date('2025-02-01T00:00:00Z'));
      expect(revoked?.revoked_at).toBe('2025-02-01T00:00:00.000Z');
      expect(await store.apiKeysVersion()).not.toBe(before);
      await store.revokeApiKey(record.id, new Date('2025-03-01T00:00:00Z'));
      expect((await store.getApiKey(record.id))?.revoked_at).toBe('2025-02-01T00:00:00.000Z');
      expect(await store.revokeApiKey('key_000000000000')).toBeNull();
    });

    it('records last use in a batch, only forward, without bumping the version', async () => {
      const { record } = await issueApiKey(store, { org: 'A', purpose: 'p' });
      const version = await store.apiKeysVersion();
      await store.recordApiKeyUse(new Map([[record.id, '2025-01-02T00:00:00.000Z']]));
      await store.recordApiKeyUse(new Map([[record.id, '2025-01-01T00:00:00.000Z']]));
      expect((await store.getApiKey(record.id))?.last_used_at).toBe('2025-01-02T00:00:00.000Z');
      expect(await store.apiKeysVersion()).toBe(version);
    });

    it('bumps the version when a key is issued', async () => {
      const before = await store.apiKeysVersion();
      await issueApiKey(store, { org: 'A', purpose: 'p', rateLimit: 120 });
      expect(await store.apiKeysVersion()).not.toBe(before);
    });
  });
}

let dir = '';
const closers: Array<() => void> = [];

describeApiKeyStoreContract('SqliteApiKeyStore', {
  open: () => {
    dir = mkdtempSync(join(tmpdir(), 'nerkh-keys-'));
    const db = openSqlite(join(dir, 'nerkh.db'));
    closers.push(() => db.close());
    return new SqliteApiKeyStore(db);
  },
  close: () => {
    for (const close of closers.splice(0)) close();
    rmSync(dir, { recursive: true, force: true });
  },
});

describeApiKeyStoreContract('MemoryApiKeyStore', { open: () => new MemoryApiKeyStore(), close: () => {} });

describe('SqliteApiKeyStore across connections', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'nerkh-keys-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('sees a revocation written by another connection (as the CLI does while a server runs)', async () => {
    const config = loadConfig({ NERKH_DATA_DIR: dataDir });
    const server = openStore(config);
    const cli = openStore(config);
    try {
      const { record } = await issueApiKey(cli.keys, { org: 'A', purpose: 'p' });
      const version = await server.keys.apiKeysVersion();
      expect((await server.keys.getApiKey(record.id))?.revoked_at).toBeNull();
      await cli.keys.revokeApiKey(record.id);
      expect(await server.keys.apiKeysVersion()).not.toBe(version);
      expect((await server.keys.getApiKey(record.id))?.revoked_at).not.toBeNull();
    } finally {
      server.close();
      cli.close();
    }
  });

  it('keeps an issued key across a reopen', async () => {
    const config = loadConfig({ NERKH_DATA_DIR: dataDir });
    const first = openStore(config);
    let key: string;
    try {
      ({ key } = await issueApiKey(first.keys, { org: 'A', purpose: 'p' }));
    } finally {
      first.close();
    }
    const second = openStore(config);
    try {
      expect(await second.keys.findApiKeyByHash(hashApiKey(key))).not.toBeNull();
    } finally {
      second.close();
    }
  });
});
