import { beforeEach, describe, expect, it } from 'vitest';
import { issueApiKey } from '../../src/keys/issue-key.ts';
import { type KeyRequestDraft, KeyRequestStateError } from '../../src/store/key-request.ts';
import type { OpenedStore } from '../../src/store/types.ts';

export const keyRequestDraft: KeyRequestDraft = {
  name: 'Sara Ahmadi',
  org: 'Kavir Analytics',
  email: 'sara@kavir.example',
  purpose: 'Show toman prices in our portfolio app',
  expected_use: 'about 1 request per minute',
  client_hash: 'c1',
};

/**
 * The behaviour every KeyRequestStore must show, written once and run against each implementation
 * (one line in its test file). `open` gives a fresh, empty store for each test; the suite closes it
 * after the test. The key store beside it issues the keys that approvals name, as `nerkh requests
 * approve` does.
 */
export function describeKeyRequestStoreContract(
  name: string,
  open: () => Promise<Pick<OpenedStore, 'keyRequests' | 'keys' | 'close'>>,
): void {
  describe(`${name}: key request store contract`, () => {
    let stores: Pick<OpenedStore, 'keyRequests' | 'keys'>;
    beforeEach(async () => {
      const opened = await open();
      stores = opened;
      return () => opened.close();
    });
    const draft = keyRequestDraft;

    it('stores a request as pending and lists it back verbatim', async () => {
      const store = stores.keyRequests;
      const created = await store.createKeyRequest(draft, new Date('2025-06-01T10:00:00Z'));
      expect(created).toMatchObject({ ...draft, status: 'pending', decided_at: null, key_id: null });
      expect(created.id).toMatch(/^req_[0-9a-f]{12}$/);
      expect(created.created_at).toBe('2025-06-01T10:00:00.000Z');
      expect(await store.getKeyRequest(created.id)).toEqual(created);
      expect(await store.listKeyRequests()).toEqual([created]);
      expect(await store.getKeyRequest('req_000000000000')).toBeNull();
    });

    it('lists oldest first and filters by status', async () => {
      const store = stores.keyRequests;
      const later = await store.createKeyRequest({ ...draft, org: 'B' }, new Date('2025-06-01T11:00:00Z'));
      const earlier = await store.createKeyRequest({ ...draft, org: 'A' }, new Date('2025-06-01T09:00:00Z'));
      expect((await store.listKeyRequests()).map((r) => r.org)).toEqual(['A', 'B']);
      await store.decideKeyRequest(later.id, { status: 'rejected' });
      expect((await store.listKeyRequests({ status: 'pending' })).map((r) => r.id)).toEqual([earlier.id]);
      expect((await store.listKeyRequests({ status: 'rejected' })).map((r) => r.id)).toEqual([later.id]);
      expect(await store.countKeyRequests('pending')).toBe(1);
      expect(await store.countKeyRequests('rejected')).toBe(1);
      expect(await store.countKeyRequests('approved')).toBe(0);
    });

    it('counts a client’s requests inside the window only', async () => {
      const store = stores.keyRequests;
      await store.createKeyRequest(draft, new Date('2025-06-01T08:00:00Z'));
      await store.createKeyRequest(draft, new Date('2025-06-01T09:30:00Z'));
      await store.createKeyRequest({ ...draft, client_hash: 'other' }, new Date('2025-06-01T09:40:00Z'));
      expect(await store.countKeyRequestsSince('c1', '2025-06-01T09:00:00.000Z')).toBe(1);
      expect(await store.countKeyRequestsSince('c1', '2025-06-01T07:00:00.000Z')).toBe(2);
    });

    it('approves once with the key id, and refuses a second decision', async () => {
      const store = stores.keyRequests;
      const request = await store.createKeyRequest(draft);
      const { record } = await issueApiKey(stores.keys, { org: draft.org, purpose: draft.purpose });
      const approved = await store.decideKeyRequest(
        request.id,
        { status: 'approved', key_id: record.id },
        new Date('2025-06-02T00:00:00Z'),
      );
      expect(approved).toMatchObject({
        status: 'approved',
        key_id: record.id,
        decided_at: '2025-06-02T00:00:00.000Z',
      });
      await expect(store.decideKeyRequest(request.id, { status: 'rejected' })).rejects.toThrow(
        KeyRequestStateError,
      );
      expect(await store.getKeyRequest(request.id)).toMatchObject({ status: 'approved' });
      expect(await store.decideKeyRequest('req_ffffffffffff', { status: 'rejected' })).toBeNull();
    });
  });
}
