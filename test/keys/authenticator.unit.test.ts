import { describe, expect, it, onTestFinished } from 'vitest';
import { KeyAuthenticator } from '../../src/keys/authenticator.ts';
import { issueApiKey } from '../../src/keys/issue-key.ts';
import { createLogger } from '../../src/logger.ts';
import { MemoryApiKeyStore } from '../../src/store/memory/key-store.ts';

/** Counts store reads, to show what the cache saves. */
class CountingStore extends MemoryApiKeyStore {
  lookups = 0;
  override async findApiKeyByHash(hash: string) {
    this.lookups++;
    return super.findApiKeyByHash(hash);
  }
}

/** A store that can be made not to answer, as PostgreSQL does while it is down or cut off. */
class OutageStore extends CountingStore {
  down = false;
  /** When set, key reads wait for it: a slow read another call can overtake. */
  gate: Promise<void> | null = null;
  override async findApiKeyByHash(hash: string) {
    if (this.down) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
    const record = await super.findApiKeyByHash(hash);
    await this.gate;
    return record;
  }
  override async apiKeysVersion() {
    if (this.down) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
    return super.apiKeysVersion();
  }
}

/** An authenticator closed when the test ends, whether its assertions pass or not. */
function closedAtEnd(auth: KeyAuthenticator): KeyAuthenticator {
  onTestFinished(() => auth.close());
  return auth;
}

function authenticatorFor(store: MemoryApiKeyStore, now = () => Date.parse('2025-01-01T00:00:00Z')) {
  return closedAtEnd(
    new KeyAuthenticator({
      store,
      logger: createLogger('silent'),
      clock: now,
      pollMs: 60_000,
      flushMs: 60_000,
    }),
  );
}

describe('KeyAuthenticator', () => {
  it('accepts an issued key and answers repeats from its cache', async () => {
    const store = new CountingStore();
    const { key, record } = await issueApiKey(store, { org: 'A', purpose: 'p', rateLimit: 7 });
    const auth = authenticatorFor(store);
    await auth.start();
    for (let i = 0; i < 5; i++) expect(await auth.authenticate(key)).toEqual({ id: record.id, rateLimit: 7 });
    expect(store.lookups).toBe(1);
  });

  it('refuses malformed keys without a store read, and caches unknown ones', async () => {
    const store = new CountingStore();
    const { key } = await issueApiKey(store, { org: 'A', purpose: 'p' });
    const auth = authenticatorFor(store);
    await auth.start();
    expect(await auth.authenticate('nerkh_nope')).toBeNull();
    // One checksum character changed (to one it is not: a fixed '0' matched 1 key in 62).
    const mistyped = `${key.slice(0, -1)}${key.endsWith('0') ? '1' : '0'}`;
    expect(await auth.authenticate(mistyped)).toBeNull();
    expect(store.lookups).toBe(0);
    const unknown = (await issueApiKey(new MemoryApiKeyStore(), { org: 'B', purpose: 'p' })).key;
    expect(await auth.authenticate(unknown)).toBeNull();
    expect(await auth.authenticate(unknown)).toBeNull();
    expect(store.lookups).toBe(1);
  });

  it('stops accepting a revoked key at the next version poll', async () => {
    const store = new MemoryApiKeyStore();
    const { key, record } = await issueApiKey(store, { org: 'A', purpose: 'p' });
    const auth = authenticatorFor(store);
    await auth.start();
    expect(await auth.authenticate(key)).not.toBeNull();
    await store.revokeApiKey(record.id);
    await auth.pollVersion();
    expect(await auth.authenticate(key)).toBeNull();
  });

  it('honours a key it has seen while the store does not answer, though a key change dropped it, and checks it again once the store answers', async () => {
    const store = new OutageStore();
    const seen = await issueApiKey(store, { org: 'A', purpose: 'p' });
    const never = await issueApiKey(store, { org: 'B', purpose: 'p' });
    const auth = authenticatorFor(store);
    await auth.start();
    expect(await auth.authenticate(seen.key)).toMatchObject({ id: seen.record.id });
    // A key issued elsewhere drops the caches at the next poll, just before the store goes away.
    await issueApiKey(store, { org: 'C', purpose: 'p' });
    await auth.pollVersion();
    store.down = true;
    expect(await auth.authenticate(seen.key)).toMatchObject({ id: seen.record.id });
    // Held in the cache again: answered at once, no store read waited on.
    expect(auth.authenticate(seen.key)).toMatchObject({ id: seen.record.id });
    await expect(auth.authenticate(never.key)).rejects.toThrow('ECONNREFUSED');

    // Revoked while this process cannot read the store: honoured until the store answers.
    await store.revokeApiKey(seen.record.id);
    await auth.pollVersion();
    expect(auth.authenticate(seen.key)).toMatchObject({ id: seen.record.id });
    store.down = false;
    await auth.pollVersion();
    expect(await auth.authenticate(seen.key)).toBeNull();
    expect(await auth.authenticate(never.key)).toMatchObject({ id: never.record.id });
  });

  it('honours while the store does not answer a key whose first use raced the drop its own issue caused', async () => {
    const store = new OutageStore();
    const auth = authenticatorFor(store);
    await auth.start();
    const { key, record } = await issueApiKey(store, { org: 'A', purpose: 'p' });
    // The key's first read and the poll that hears of its issue cross: answered, not cached.
    let open = () => {};
    store.gate = new Promise((resolve) => {
      open = resolve;
    });
    const first = auth.authenticate(key);
    await auth.pollVersion();
    open();
    expect(await first).toMatchObject({ id: record.id });
    store.gate = null;
    store.down = true;
    expect(await auth.authenticate(key)).toMatchObject({ id: record.id });
  });

  it('honours a key seen before when the store hangs, after a short wait rather than its timeout', async () => {
    const store = new OutageStore();
    const { key, record } = await issueApiKey(store, { org: 'A', purpose: 'p' });
    const auth = closedAtEnd(
      new KeyAuthenticator({
        store,
        logger: createLogger('silent'),
        pollMs: 60_000,
        flushMs: 60_000,
        seenBeforeWaitMs: 50,
      }),
    );
    await auth.start();
    await auth.authenticate(key);
    await issueApiKey(store, { org: 'B', purpose: 'p' });
    await auth.pollVersion();
    // A network cut without a reset: the read neither answers nor fails.
    store.gate = new Promise(() => {});
    expect(await auth.authenticate(key)).toMatchObject({ id: record.id });
    const never = await issueApiKey(new MemoryApiKeyStore(), { org: 'C', purpose: 'p' });
    const unseen = Promise.resolve(auth.authenticate(never.key));
    const waited = await Promise.race([
      unseen,
      new Promise((resolve) => setTimeout(() => resolve('waiting'), 200)),
    ]);
    expect(waited).toBe('waiting');
  });

  it('answers a key seen before from memory without asking a store it knows does not answer', async () => {
    const store = new OutageStore();
    const { key, record } = await issueApiKey(store, { org: 'A', purpose: 'p' });
    const auth = authenticatorFor(store);
    await auth.start();
    await auth.authenticate(key);
    await issueApiKey(store, { org: 'B', purpose: 'p' });
    await auth.pollVersion();
    store.down = true;
    // The failed poll tells it the store is down: a stalled store would hold each read for seconds.
    await auth.pollVersion();
    const lookups = store.lookups;
    expect(auth.authenticate(key)).toMatchObject({ id: record.id });
    expect(auth.cachedValid(key, Date.parse('2025-01-01T00:00:00Z'))).toMatchObject({ id: record.id });
    expect(store.lookups).toBe(lookups);
  });

  it('refuses a key that expires while it is being used, however recently it was seen', async () => {
    const store = new MemoryApiKeyStore();
    const { key } = await issueApiKey(store, { org: 'A', purpose: 'p', expiresAt: '2025-01-01T00:00:10Z' });
    let now = Date.parse('2025-01-01T00:00:00Z');
    const auth = authenticatorFor(store, () => now);
    await auth.start();
    expect(await auth.authenticate(key)).not.toBeNull();
    await auth.pollVersion();
    expect(auth.authenticate(key)).not.toBeNull();
    now += 10_000;
    expect(auth.authenticate(key)).toBeNull();
  });

  it('refuses an expired key', async () => {
    const store = new MemoryApiKeyStore();
    const { key } = await issueApiKey(store, { org: 'A', purpose: 'p', expiresAt: '2025-01-01T00:00:00Z' });
    const auth = authenticatorFor(store, () => Date.parse('2025-01-01T00:00:00Z'));
    await auth.start();
    expect(await auth.authenticate(key)).toBeNull();
  });

  it('writes last use in one batch on flush and on close, not per request', async () => {
    const store = new MemoryApiKeyStore();
    const { key, record } = await issueApiKey(store, { org: 'A', purpose: 'p' });
    let now = Date.parse('2025-01-01T00:00:00Z');
    const auth = authenticatorFor(store, () => now);
    await auth.start();
    await auth.authenticate(key);
    now += 5000;
    await auth.authenticate(key);
    expect((await store.getApiKey(record.id))?.last_used_at).toBeNull();
    await auth.close();
    expect((await store.getApiKey(record.id))?.last_used_at).toBe('2025-01-01T00:00:05.000Z');
  });

  it('keeps last uses not yet written when a key change drops the caches or the bound evicts a key', async () => {
    const store = new MemoryApiKeyStore();
    const first = await issueApiKey(store, { org: 'A', purpose: 'p' });
    const second = await issueApiKey(store, { org: 'B', purpose: 'p' });
    let now = Date.parse('2025-01-01T00:00:00Z');
    const auth = closedAtEnd(
      new KeyAuthenticator({
        store,
        logger: createLogger('silent'),
        clock: () => now,
        pollMs: 60_000,
        flushMs: 60_000,
        validCacheSize: 1,
      }),
    );
    await auth.start();
    await auth.authenticate(first.key);
    now += 1000;
    // The second key takes the only place in the cache: the first one is evicted.
    await auth.authenticate(second.key);
    now += 1000;
    // A key issued elsewhere changes the version: the caches are dropped at the next poll.
    await issueApiKey(store, { org: 'C', purpose: 'p' });
    await auth.pollVersion();
    expect((await store.getApiKey(first.record.id))?.last_used_at).toBeNull();
    await auth.flushLastUse();
    expect((await store.getApiKey(first.record.id))?.last_used_at).toBe('2025-01-01T00:00:00.000Z');
    expect((await store.getApiKey(second.record.id))?.last_used_at).toBe('2025-01-01T00:00:01.000Z');
    // Written once: a flush with nothing new writes nothing.
    await store.recordApiKeyUse(new Map([[second.record.id, '2025-01-02T00:00:00.000Z']]));
    await auth.flushLastUse();
    expect((await store.getApiKey(second.record.id))?.last_used_at).toBe('2025-01-02T00:00:00.000Z');
  });

  it('answers a key it has seen synchronously, with no promise to wait on', async () => {
    const store = new MemoryApiKeyStore();
    const { key, record } = await issueApiKey(store, { org: 'A', purpose: 'p' });
    const auth = authenticatorFor(store);
    await auth.start();
    expect(await auth.authenticate(key)).toEqual({ id: record.id, rateLimit: null });
    const again = auth.authenticate(key);
    expect(again).not.toBeInstanceOf(Promise);
    expect(again).toEqual({ id: record.id, rateLimit: null });
  });

  it('keeps valid keys cached while a client floods it with unknown ones', async () => {
    const store = new CountingStore();
    const issued = [];
    for (let i = 0; i < 3; i++) issued.push((await issueApiKey(store, { org: 'A', purpose: 'p' })).key);
    const auth = closedAtEnd(
      new KeyAuthenticator({
        store,
        logger: createLogger('silent'),
        pollMs: 60_000,
        flushMs: 60_000,
        validCacheSize: 3,
        invalidCacheSize: 2,
      }),
    );
    await auth.start();
    for (const key of issued) expect(await auth.authenticate(key)).not.toBeNull();
    const elsewhere = new MemoryApiKeyStore();
    for (let i = 0; i < 20; i++) {
      expect(
        await auth.authenticate((await issueApiKey(elsewhere, { org: 'X', purpose: 'p' })).key),
      ).toBeNull();
    }
    const lookupsAfterFlood = store.lookups;
    for (const key of issued) expect(await auth.authenticate(key)).not.toBeNull();
    expect(store.lookups).toBe(lookupsAfterFlood);
  });

  it('evicts the oldest valid key beyond its bound and reads it again when it returns', async () => {
    const store = new CountingStore();
    const issued = [];
    for (let i = 0; i < 3; i++) issued.push((await issueApiKey(store, { org: 'A', purpose: 'p' })).key);
    const auth = closedAtEnd(
      new KeyAuthenticator({
        store,
        logger: createLogger('silent'),
        pollMs: 60_000,
        flushMs: 60_000,
        validCacheSize: 2,
      }),
    );
    await auth.start();
    for (const key of issued) await auth.authenticate(key);
    expect(store.lookups).toBe(3);
    expect(await auth.authenticate(issued[0] as string)).not.toBeNull();
    expect(store.lookups).toBe(4);
  });
});
