import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { OpenedStore } from '../../src/store/types.ts';

/** A fresh store as `openStore` opens it by default (SQLite), in its own data directory, removed on close. */
export async function openTempSqliteStore(): Promise<OpenedStore> {
  const dataDir = mkdtempSync(join(tmpdir(), 'nerkh-sqlite-'));
  const store = await openStore(loadConfig({ NERKH_DATA_DIR: dataDir }));
  return {
    ...store,
    close: async () => {
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
