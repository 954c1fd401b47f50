import { beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { hashApiKey } from '../../src/keys/api-key.ts';
import { issueApiKey } from '../../src/keys/issue-key.ts';
import { type OpenedPostgresStore, openPostgresStore } from '../../src/store/postgres/open-postgres-store.ts';
import {
  type ApiKeyStore,
  type KeyRequestDraft,
  KeyRequestStateError,
  type KeyRequestStore,
} from '../../src/store/types.ts';
import { createTestDatabase, skipPostgres } from '../support/postgres.ts';
import { describeSnapshotStoreContract } from './snapshot-store-contract.ts';

/**
 * The PostgreSQL store against the behaviour every store shows: the snapshot contract suite, and
 * the assertions of api-key-store.test.ts and key-request-store.test.ts run on a fresh database
 * per test (those two files hold them for SQLite and memory; they become contract suites too).
 */
async function openOnFreshDatabase(): Promise<OpenedPostgresStore> {
  const url = await createTestDatabase();
  return openPostgresStore({
    NERKH_DATABASE_URL: url,
    NERKH_DATABASE_POOL_SIZE: 4,
    NERKH_SNAPSHOT_RETENTION: 1000,
  });
}

/** Opens a store for the current test and closes it when the test ends, before asserting. */
async function openForTest(): Promise<OpenedPostgresStore> {
  const store = await openOnFreshDatabase();
  onTestFinished(() => store.close());
  return store;
}

describe.skipIf(skipPostgres)('PostgreSQL store', () => {
  let opened: OpenedPostgresStore | undefined;
  describeSnapshotStoreContract('PostgresSnapshotStore', {
    open: async () => {
      opened = await openOnFreshDatabase();
      return opened.snapshots;
    },
    close: () => opened?.close(),
  });

  describe('PostgresApiKeyStore (ApiKeyStore contract)', () => {
    let store: ApiKeyStore;
    beforeEach(async () => {
      store = (await openForTest()).keys;
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

    it('bumps the version when a key is issued', async () => {
      const before = await store.apiKeysVersion();
      await issueApiKey(store, { org: 'A', purpose: 'p', rateLimit: 120 });
      expect(await store.apiKeysVersion()).not.toBe(before);
    });
  });

  describe('PostgresKeyRequestStore (KeyRequestStore contract)', () => {
    const draft: KeyRequestDraft = {
      name: 'Sara Ahmadi',
      org: 'Kavir Analytics',
      email: 'sara@kavir.example',
      purpose: 'Show toman prices in our portfolio app',
      expected_use: 'about 1 request per minute',
      client_hash: 'c1',
    };
    let store: KeyRequestStore;
    let keys: ApiKeyStore;
    beforeEach(async () => {
      ({ keyRequests: store, keys } = await openForTest());
    });
    // An approved request names an issued key (a foreign key, as in SQLite).
    const insertKey = (id: string) =>
      keys.insertApiKey({
        id,
        prefix: 'nerkh_x',
        hash: `hash-${id}`,
        org: 'o',
        contact: null,
        purpose: 'p',
        rate_limit: null,
        created_at: new Date().toISOString(),
        expires_at: null,
        revoked_at: null,
        last_used_at: null,
      });

    it('stores a request as pending and lists it back verbatim', async () => {
      const created = await store.createKeyRequest(draft, new Date('2025-06-01T10:00:00Z'));
      expect(created).toMatchObject({ ...draft, status: 'pending', decided_at: null, key_id: null });
      expect(created.id).toMatch(/^req_[0-9a-f]{12}$/);
      expect(created.created_at).toBe('2025-06-01T10:00:00.000Z');
      expect(await store.getKeyRequest(created.id)).toEqual(created);
      expect(await store.listKeyRequests()).toEqual([created]);
      expect(await store.getKeyRequest('req_000000000000')).toBeNull();
    });

    it('lists oldest first and filters by status', async () => {
      const later = await store.createKeyRequest({ ...draft, org: 'B' }, new Date('2025-06-01T11:00:00Z'));
      const earlier = await store.createKeyRequest({ ...draft, org: 'A' }, new Date('2025-06-01T09:00:00Z'));
      expect((await store.listKeyRequests()).map((r) => r.org)).toEqual(['A', 'B']);
      await store.decideKeyRequest(later.id, { status: 'rejected' });
      expect((await store.listKeyRequests({ status: 'pending' })).map((r) => r.id)).toEqual([earlier.id]);
      expect((await store.listKeyRequests({ status: 'rejected' })).map((r) => r.id)).toEqual([later.id]);
    });

    it('counts a client’s requests inside the window only', async () => {
      await store.createKeyRequest(draft, new Date('2025-06-01T08:00:00Z'));
      await store.createKeyRequest(draft, new Date('2025-06-01T09:30:00Z'));
      await store.createKeyRequest({ ...draft, client_hash: 'other' }, new Date('2025-06-01T09:40:00Z'));
      expect(await store.countKeyRequestsSince('c1', '2025-06-01T09:00:00.000Z')).toBe(1);
      expect(await store.countKeyRequestsSince('c1', '2025-06-01T07:00:00.000Z')).toBe(2);
    });

    it('approves once with the key id, and refuses a second decision', async () => {
      const request = await store.createKeyRequest(draft);
      await insertKey('key_1');
      const approved = await store.decideKeyRequest(
        request.id,
        { status: 'approved', key_id: 'key_1' },
        new Date('2025-06-02T00:00:00Z'),
      );
      expect(approved).toMatchObject({
        status: 'approved',
        key_id: 'key_1',
        decided_at: '2025-06-02T00:00:00.000Z',
      });
      await expect(store.decideKeyRequest(request.id, { status: 'rejected' })).rejects.toThrow(
        KeyRequestStateError,
      );
      expect(await store.getKeyRequest(request.id)).toMatchObject({ status: 'approved' });
      expect(await store.decideKeyRequest('req_ffffffffffff', { status: 'rejected' })).toBeNull();
    });
  });
});
