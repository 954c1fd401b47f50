import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { openStore } from '../../src/store/open-store.ts';
import { draftAt } from './snapshot-store-contract.ts';

let dataDir: string;
beforeEach(() => {
  const dir = mkdtempSync(join(tmpdir(), 'nerkh-open-store-'));
  dataDir = dir;
  return () => rmSync(dir, { recursive: true, force: true });
});

describe('openStore', () => {
  it('opens the embedded store as nerkh.db in NERKH_DATA_DIR, and finds its data there again', async () => {
    const config = loadConfig({ NERKH_DATA_DIR: join(dataDir, 'nested') });
    const store = await openStore(config);
    try {
      await store.snapshots.commitSnapshot(draftAt(0));
    } finally {
      await store.close();
    }
    expect(existsSync(join(dataDir, 'nested', 'nerkh.db'))).toBe(true);
    const again = await openStore(config);
    try {
      expect(await again.snapshots.latestSnapshot()).toEqual({ id: 1, ...draftAt(0) });
    } finally {
      await again.close();
    }
  });

  it('opens PostgreSQL for NERKH_DATABASE_URL: an unreachable server fails in one line naming it, and nothing is created in NERKH_DATA_DIR', async () => {
    const config = loadConfig({
      NERKH_DATA_DIR: join(dataDir, 'unused'),
      NERKH_DATABASE_URL: 'postgres://nerkh:s3cret@127.0.0.1:1/nerkh',
    });
    const opening = openStore(config);
    await expect(opening).rejects.toThrow(/^PostgreSQL at 127\.0\.0\.1:1\/nerkh: connect ECONNREFUSED/);
    await expect(opening).rejects.not.toThrow(/s3cret/);
    expect(existsSync(join(dataDir, 'unused'))).toBe(false);
  });
});
