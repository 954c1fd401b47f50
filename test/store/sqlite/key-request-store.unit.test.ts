import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { openStore } from '../../../src/store/open-store.ts';
import { openTempSqliteStore } from '../../support/temp-sqlite-store.ts';
import { describeKeyRequestStoreContract, keyRequestDraft } from '../key-request-store-contract.ts';

describeKeyRequestStoreContract('SqliteKeyRequestStore', openTempSqliteStore);

describe('SqliteKeyRequestStore on a file', () => {
  let dataDir: string;
  beforeEach(() => {
    const dir = mkdtempSync(join(tmpdir(), 'nerkh-requests-'));
    dataDir = dir;
    return () => rmSync(dir, { recursive: true, force: true });
  });

  it('keeps requests across a reopen of the database file', async () => {
    const config = loadConfig({ NERKH_DATA_DIR: dataDir });
    const store = await openStore(config);
    const created = await store.keyRequests.createKeyRequest(keyRequestDraft);
    await store.close();
    const again = await openStore(config);
    try {
      expect(await again.keyRequests.getKeyRequest(created.id)).toEqual(created);
    } finally {
      await again.close();
    }
  });
});
