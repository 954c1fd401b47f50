import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../../src/config.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { type BenchRun, stopServer } from './bench-run.ts';
import { issueBenchKeys } from './fixture.ts';
import { freePort } from './free-port.ts';
import { type Etags, measureLoad } from './measure-load.ts';
import { startNerkh } from './nerkh.ts';
import { fullList } from './scenarios.ts';
import { benchKeyLimit, benchKeys, publicUrl, rssKeys, startupRuns } from './workload.ts';

export interface Footprint {
  peakRssMB: number;
  /** Milliseconds from process start to the first 200, one per start. */
  startups: number[];
}

/**
 * Peak memory with 100,000 keys issued, after each was used through the server at least once (so
 * the key cache and the limiter hold as much as they ever will), and the time from process start
 * to the first 200 with a stored snapshot, as `nerkh serve` starts.
 */
export async function measureFootprint(
  run: BenchRun,
  config: Config,
  readyKey: string,
  etags: Etags,
): Promise<Footprint> {
  const { seconds } = run.options;
  const rssStore = openSqliteStore(config);
  await issueBenchKeys(rssStore, rssKeys - benchKeys, benchKeyLimit, run.keysFile);
  await rssStore.close();
  const rssLog = join(run.work, 'nerkh-rss.log');
  const rssRun = await startNerkh({
    dataDir: run.dataDir,
    port: await freePort(),
    publicUrl,
    logFile: rssLog,
    readyKey,
    ...run.onServerCpu,
  });
  run.servers.nerkh = rssRun;
  let keysUsed = 0;
  let keyOffset = 0;
  // Passes of --seconds each, for up to a minute of load (more with long passes): a slow or busy
  // machine needs more of them to reach every key.
  const passes = Math.max(6, Math.ceil(60 / seconds));
  for (let pass = 0; pass < passes && keysUsed < rssKeys; pass++) {
    // Each pass continues the rotation where the last one stopped.
    keyOffset += (await measureLoad(run, 'nerkh', fullList, etags, seconds, keyOffset)).requests;
    // The access log names the key id of every authenticated request: count the distinct ones.
    keysUsed = new Set(readFileSync(rssLog, 'utf8').match(/"key_id":"key_[0-9a-f]{12}"/g)).size;
  }
  const peakRssMB = (rssRun.peakRssKiB() * 1024) / 1e6;
  await stopServer(run, 'nerkh');
  if (keysUsed < rssKeys) throw new Error(`only ${keysUsed} of ${rssKeys} keys reached the server`);

  const startups: number[] = [];
  for (let started = 0; started < startupRuns; started++) {
    const nerkh = await startNerkh({
      dataDir: run.dataDir,
      port: await freePort(),
      publicUrl,
      logFile: join(run.work, 'nerkh-start.log'),
      readyKey,
    });
    startups.push(nerkh.firstOkMs);
    await nerkh.stop();
  }
  return { peakRssMB, startups };
}
