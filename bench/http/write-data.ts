import { join } from 'node:path';
import { type Config, loadConfig } from '../../src/config.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { BenchRun } from './bench-run.ts';
import { type BenchKey, commitBenchSnapshot, issueBenchKeys } from './fixture.ts';
import { benchKeyLimit, benchKeys, burstLimit, coins, publicUrl } from './workload.ts';

/** The data directory the bench's nerkh servers share, and the keys each part sends. */
export interface BenchData {
  config: Config;
  /** Coins in the committed snapshot. */
  rows: number;
  /** The keys the load rotates through, with a limit it cannot reach. */
  loadKeys: BenchKey[];
  /** The first of them: readiness checks and the bench's own requests use it. */
  readyKey: string;
  /** Keys with the spec's limit: one for each burst, one for the Redis cut. */
  oneWindowKey: BenchKey;
  straddleKey: BenchKey;
  outageKey: BenchKey;
}

/**
 * The data an operator's nerkh would have: one snapshot of 200 coins and 10,000 issued keys; for
 * the burst and the Redis cut, keys with the spec's limit of 60.
 */
export async function writeBenchData(run: BenchRun): Promise<BenchData> {
  const config = loadConfig({
    NERKH_DATA_DIR: run.dataDir,
    NERKH_PUBLIC_URL: publicUrl,
    LOG_LEVEL: 'silent',
  });
  const store = openSqliteStore(config);
  const rows = await commitBenchSnapshot(store, config, coins);
  const loadKeys = await issueBenchKeys(store, benchKeys, benchKeyLimit, run.keysFile);
  const limitedKeysFile = join(run.work, 'limited-keys.txt');
  const [oneWindowKey, straddleKey, outageKey] = (await issueBenchKeys(
    store,
    3,
    burstLimit,
    limitedKeysFile,
  )) as [BenchKey, BenchKey, BenchKey];
  await store.close();
  run.redisKeyIds.push(...loadKeys.map(({ id }) => id), oneWindowKey.id, straddleKey.id, outageKey.id);
  const readyKey = (loadKeys[0] as BenchKey).key;
  return { config, rows, loadKeys, readyKey, oneWindowKey, straddleKey, outageKey };
}
