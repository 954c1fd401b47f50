import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type KeyRequestDraft, KeyRequestStateError } from '../../src/keys/key-request.ts';
import { MemoryKeyRequestStore } from '../../src/store/memory/key-request-store.ts';
import { openSqlite } from '../../src/store/sqlite/database.ts';
import { SqliteKeyRequestStore } from '../../src/store/sqlite/key-request-store.ts';
import type { KeyRequestStore } from '../../src/store/types.ts';

const draft: KeyRequestDraft = {
  name: 'Sara Ahmadi',
  org: 'Kavir Analytics',
  email: 'sara@kavir.example',
  purpose: 'Show toman prices in our portfolio app',
  expected_use: 'about 1 request per minute',
  client_hash: 'c1',
};

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function sqliteFactory(): { store: KeyRequestStore; insertKey(id: string): void; reopen(): KeyRequestStore } {
  const dir = mkdtempSync(join(tmpdir(), 'nerkh-requests-'));
  const file = join(dir, 'nerkh.db');
  const db = openSqlite(file);
  cleanups.push(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    store: new SqliteKeyRequestStore(db),
    insertKey(id) {
      db.prepare(
        `INSERT INTO api_keys (id, prefix, hash, org, purpose, created_at) VALUES (?, 'nerkh_x', ?, 'o', 'p', ?)`,
      ).run(id, `hash-${id}`, new Date().toISOString());
    },
    reopen() {
      const again = openSqlite(file);
      cleanups.unshift(() => again.close());
      return new SqliteKeyRequestStore(again);
    },
  };
}

const implementations: [string, () => { store: KeyRequestStore; insertKey(id: string): void }][] = [
  ['memory', () => ({ store: new MemoryKeyRequestStore(), insertKey: () => {} })],
  ['sqlite', sqliteFactory],
];

describe.each(implementations)('%s key request store', (_name, make) => {
  it('stores a request as pending and lists it back verbatim', async () => {
    const { store } = make();
    const created = await store.createKeyRequest(draft, new Date('2025-06-01T10:00:00Z'));
    expect(created).toMatchObject({ ...draft, status: 'pending', decided_at: null, key_id: null });
    expect(created.id).toMatch(/^req_[0-9a-f]{12}$/);
    expect(created.created_at).toBe('2025-06-01T10:00:00.000Z');
    expect(await store.getKeyRequest(created.id)).toEqual(created);
    expect(await store.listKeyRequests()).toEqual([created]);
    expect(await store.getKeyRequest('req_000000000000')).toBeNull();
  });

  it('lists oldest first and filters by status', async () => {
    const { store } = make();
    const later = await store.createKeyRequest({ ...draft, org: 'B' }, new Date('2025-06-01T11:00:00Z'));
    const earlier = await store.createKeyRequest({ ...draft, org: 'A' }, new Date('2025-06-01T09:00:00Z'));
    expect((await store.listKeyRequests()).map((r) => r.org)).toEqual(['A', 'B']);
    await store.decideKeyRequest(later.id, { status: 'rejected' });
    expect((await store.listKeyRequests({ status: 'pending' })).map((r) => r.id)).toEqual([earlier.id]);
    expect((await store.listKeyRequests({ status: 'rejected' })).map((r) => r.id)).toEqual([later.id]);
  });

  it('counts a client’s requests inside the window only', async () => {
    const { store } = make();
    await store.createKeyRequest(draft, new Date('2025-06-01T08:00:00Z'));
    await store.createKeyRequest(draft, new Date('2025-06-01T09:30:00Z'));
    await store.createKeyRequest({ ...draft, client_hash: 'other' }, new Date('2025-06-01T09:40:00Z'));
    expect(await store.countKeyRequestsSince('c1', '2025-06-01T09:00:00.000Z')).toBe(1);
    expect(await store.countKeyRequestsSince('c1', '2025-06-01T07:00:00.000Z')).toBe(2);
  });

  it('approves once with the key id, and refuses a second decision', async () => {
    const { store, insertKey } = make();
    const request = await store.createKeyRequest(draft);
    insertKey('key_1');
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

describe('sqlite key request store', () => {
  it('keeps requests across a reopen of the database file', async () => {
    const { store, reopen } = sqliteFactory();
    const created = await store.createKeyRequest(draft);
    expect(await reopen().getKeyRequest(created.id)).toEqual(created);
  });
});
