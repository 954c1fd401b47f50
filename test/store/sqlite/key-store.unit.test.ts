import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { hashApiKey } from '../../../src/keys/api-key.ts';
import { issueApiKey } from '../../../src/keys/issue-key.ts';
import { openStore } from '../../../src/store/open-store.ts';
import { openSqlite } from '../../../src/store/sqlite/database.ts';
import { openTempSqliteStore } from '../../support/temp-sqlite-store.ts';
import { describeKeyStoreContract } from '../key-store-contract.ts';

describeKeyStoreContract('SqliteApiKeyStore', openTempSqliteStore);

describe('SqliteApiKeyStore across connections', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'nerkh-keys-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('sees a revocation written by another connection (as the CLI does while a server runs)', async () => {
    const config = loadConfig({ NERKH_DATA_DIR: dataDir });
    const server = await openStore(config);
    const cli = await openStore(config);
    try {
      const { record } = await issueApiKey(cli.keys, { org: 'A', purpose: 'p' });
      const version = await server.keys.apiKeysVersion();
      expect((await server.keys.getApiKey(record.id))?.revoked_at).toBeNull();
      await cli.keys.revokeApiKey(record.id);
      expect(await server.keys.apiKeysVersion()).not.toBe(version);
      expect((await server.keys.getApiKey(record.id))?.revoked_at).not.toBeNull();
    } finally {
      await server.close();
      await cli.close();
    }
  });

  it('writes last use while the file is locked by another writer without holding up the event loop', async () => {
    const config = loadConfig({ NERKH_DATA_DIR: dataDir });
    const server = await openStore(config);
    const cli = openSqlite(join(dataDir, 'nerkh.db'));
    try {
      const { record } = await issueApiKey(server.keys, { org: 'A', purpose: 'p' });
      cli.exec('BEGIN IMMEDIATE');
      let written = false;
      const writing = server.keys
        .recordApiKeyUse(new Map([[record.id, '2025-01-02T00:00:00.000Z']]))
        .then(() => {
          written = true;
        });
      // Timers keep firing on time while the write waits for the lock the other connection holds.
      const started = performance.now();
      for (let tick = 0; tick < 10; tick++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(written).toBe(false);
      cli.exec('COMMIT');
      await writing;
      expect((await server.keys.getApiKey(record.id))?.last_used_at).toBe('2025-01-02T00:00:00.000Z');
    } finally {
      if (cli.inTransaction) cli.exec('ROLLBACK');
      cli.close();
      await server.close();
    }
  });

  it('keeps an issued key across a reopen', async () => {
    const config = loadConfig({ NERKH_DATA_DIR: dataDir });
    const first = await openStore(config);
    const { key } = await issueApiKey(first.keys, { org: 'A', purpose: 'p' });
    await first.close();
    const second = await openStore(config);
    try {
      expect(await second.keys.findApiKeyByHash(hashApiKey(key))).not.toBeNull();
    } finally {
      await second.close();
    }
  });
});
