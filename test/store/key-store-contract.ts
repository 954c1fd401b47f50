import { beforeEach, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/keys/api-key.ts';
import { issueApiKey } from '../../src/keys/issue-key.ts';
import type { ApiKeyStore, OpenedStore } from '../../src/store/types.ts';

/**
 * The behaviour every ApiKeyStore must show, written once and run against each implementation
 * (one line in its test file). `open` gives a fresh, empty store for each test; the suite closes
 * it after the test.
 */
export function describeKeyStoreContract(
  name: string,
  open: () => Promise<Pick<OpenedStore, 'keys' | 'close'>>,
): void {
  describe(`${name}: key store contract`, () => {
    let store: ApiKeyStore;
    beforeEach(async () => {
      const opened = await open();
      store = opened.keys;
      return () => opened.close();
    });

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

    it('adds usage per key and day to the stored counts, with last use, without bumping the version', async () => {
      const a = await issueApiKey(store, { org: 'A', purpose: 'p' });
      const b = await issueApiKey(store, { org: 'B', purpose: 'p' });
      const version = await store.apiKeysVersion();
      await store.recordApiKeyUse(new Map([[a.record.id, '2025-01-02T23:59:00.000Z']]), [
        { keyId: a.record.id, day: '2025-01-01', admitted: 5, refused: 0 },
        { keyId: a.record.id, day: '2025-01-02', admitted: 60, refused: 10 },
        { keyId: b.record.id, day: '2025-01-02', admitted: 1, refused: 0 },
        // A key the store does not hold is skipped, never failing the rest of the batch.
        { keyId: 'key_000000000000', day: '2025-01-02', admitted: 3, refused: 3 },
      ]);
      await store.recordApiKeyUse(new Map(), [
        { keyId: a.record.id, day: '2025-01-02', admitted: 2, refused: 1 },
        { keyId: b.record.id, day: '2025-01-03', admitted: 4, refused: 0 },
      ]);
      expect((await store.getApiKey(a.record.id))?.last_used_at).toBe('2025-01-02T23:59:00.000Z');
      expect(await store.apiKeysVersion()).toBe(version);
      const secondDay = [
        { keyId: a.record.id, day: '2025-01-02', admitted: 62, refused: 11 },
        { keyId: b.record.id, day: '2025-01-02', admitted: 1, refused: 0 },
      ].sort((x, y) => (x.keyId < y.keyId ? -1 : 1));
      expect(await store.apiKeyUsage({ since: '2025-01-02' })).toEqual([
        ...secondDay,
        { keyId: b.record.id, day: '2025-01-03', admitted: 4, refused: 0 },
      ]);
      expect(await store.apiKeyUsage({ keyId: a.record.id, since: '2024-12-31' })).toEqual([
        { keyId: a.record.id, day: '2025-01-01', admitted: 5, refused: 0 },
        { keyId: a.record.id, day: '2025-01-02', admitted: 62, refused: 11 },
      ]);
      expect(await store.apiKeyUsage({ keyId: 'key_000000000000', since: '2000-01-01' })).toEqual([]);
    });

    it('bumps the version when a key is issued', async () => {
      const before = await store.apiKeysVersion();
      await issueApiKey(store, { org: 'A', purpose: 'p', rateLimit: 120 });
      expect(await store.apiKeysVersion()).not.toBe(before);
    });
  });
}
