import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
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

  it('refuses NERKH_DATABASE_URL, which this build cannot use, before it creates anything', async () => {
    const config = loadConfig({
      NERKH_DATA_DIR: join(dataDir, 'unused'),
      NERKH_DATABASE_URL: 'postgres://nerkh@db.example/nerkh',
    });
    const opening = openStore(config);
    await expect(opening).rejects.toThrow(ConfigError);
    await expect(opening).rejects.toThrow(
      /^NERKH_DATABASE_URL is set, but this build of nerkh has no PostgreSQL store yet; unset it/,
    );
    expect(existsSync(join(dataDir, 'unused'))).toBe(false);
  });
});
