import { describe, expect, it, onTestFinished } from 'vitest';
import { hashApiKey } from '../../../src/keys/api-key.ts';
import { issueApiKey } from '../../../src/keys/issue-key.ts';
import { openPostgresStore } from '../../../src/store/postgres/open-postgres-store.ts';
import { openFreshPostgresStore } from '../../support/fresh-postgres-store.ts';
import { createTestDatabase, skipPostgres } from '../../support/postgres.ts';
import { describeKeyStoreContract } from '../key-store-contract.ts';

describe.skipIf(skipPostgres)('PostgreSQL', () => {
  describeKeyStoreContract('PostgresApiKeyStore', openFreshPostgresStore);
});

/** One nerkh process's view of the database at `url`, closed when the test ends. */
async function instance(url: string) {
  const store = await openPostgresStore({
    NERKH_DATABASE_URL: url,
    NERKH_DATABASE_POOL_SIZE: 4,
    NERKH_SNAPSHOT_RETENTION: 10,
  });
  onTestFinished(() => store.close());
  return store;
}

describe.skipIf(skipPostgres)('PostgresApiKeyStore across instances', () => {
  it('shows a key revoked through one instance as a version change and a revoked key in another', async () => {
    const url = await createTestDatabase();
    const [server, cli] = [await instance(url), await instance(url)];
    const { key, record } = await issueApiKey(cli.keys, { org: 'A', purpose: 'p' });
    const version = await server.keys.apiKeysVersion();
    expect((await server.keys.findApiKeyByHash(hashApiKey(key)))?.revoked_at).toBeNull();

    await cli.keys.revokeApiKey(record.id, new Date('2025-02-01T00:00:00Z'));
    expect(await server.keys.apiKeysVersion()).not.toBe(version);
    expect((await server.keys.findApiKeyByHash(hashApiKey(key)))?.revoked_at).toBe(
      '2025-02-01T00:00:00.000Z',
    );
  });

  it('keeps an issued key across a restart of every instance', async () => {
    const url = await createTestDatabase();
    const first = await instance(url);
    const { key } = await issueApiKey(first.keys, { org: 'A', purpose: 'p' });
    await first.close();
    const second = await instance(url);
    expect(await second.keys.findApiKeyByHash(hashApiKey(key))).not.toBeNull();
  });

  it('records last use and usage from instances flushing overlapping keys at once without deadlock, newest time winning', async () => {
    const url = await createTestDatabase();
    const [a, b] = [await instance(url), await instance(url)];
    const ids: string[] = [];
    for (let i = 0; i < 300; i++)
      ids.push((await issueApiKey(a.keys, { org: `org ${i}`, purpose: 'p' })).record.id);
    const reversed = [...ids].reverse();
    for (let round = 0; round < 8; round++) {
      const at = (ms: number) => new Date(Date.UTC(2025, 0, 1, 0, round, 0, ms)).toISOString();
      // Each instance's batch is in its own order (the order keys were last used in it), usage too.
      const usage = (order: string[]) =>
        order.map((keyId) => ({ keyId, day: '2025-01-01', admitted: 2, refused: 1 }));
      await Promise.all([
        a.keys.recordApiKeyUse(new Map(ids.map((id) => [id, at(1)])), usage(ids)),
        b.keys.recordApiKeyUse(new Map(reversed.map((id) => [id, at(2)])), usage(reversed)),
        a.keys.recordApiKeyUse(new Map(reversed.map((id) => [id, at(0)])), usage(reversed)),
      ]);
      const used = new Set((await b.keys.listApiKeys()).map((k) => k.last_used_at));
      expect(used).toEqual(new Set([at(2)]));
    }
    // Every instance's counts add up: 8 rounds of 3 flushes.
    const counted = await a.keys.apiKeyUsage({ since: '2025-01-01' });
    expect(counted).toHaveLength(300);
    expect(new Set(counted.map((row) => `${row.admitted}/${row.refused}`))).toEqual(new Set(['48/24']));
  });
});
