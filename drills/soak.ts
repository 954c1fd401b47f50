import { issueApiKey } from '../src/keys/issue-key.ts';
import { isMain, runDrillCommand } from './support/drill-cli.ts';
import { countOutside, Load, phaseLine } from './support/load.ts';
import { NerkhProcess } from './support/nerkh-process.ts';
import {
  openDrillStore,
  type Say,
  simulatorEnv,
  sleep,
  startSimulator,
  type Teardown,
  tempDataDir,
  waitForRates,
} from './support/rig.ts';

/**
 * The soak: one `nerkh serve` under steady load for a long time while keys are issued and revoked
 * without pause (through the store, as `nerkh keys` does) and the clients keep switching to the
 * newest keys. A process that leaks shows it here as a resident set that keeps growing or file
 * descriptors that pile up; a revocation race shows as a 5xx.
 */
export interface SoakOptions {
  seconds: number;
  warmup: number;
  clients: number;
  /** Keys in use at once; every rotation issues one and revokes the oldest. */
  keys: number;
  rotateMs: number;
  sampleSeconds: number;
}

export interface RssSample {
  second: number;
  rssKiB: number;
  descriptors: number;
}

export interface SoakResult {
  ok: boolean;
  samples: RssSample[];
  /** Largest distance of a sample after warm-up from their median, in percent. */
  rssSpreadPct: number;
  descriptorsBefore: number;
  descriptorsAfter: number;
  issued: number;
  revoked: number;
  /** Requests that got neither 200 nor 403 (a key revoked a moment ago). */
  unexpected: number;
}

export async function soakDrill(options: SoakOptions, say: Say, teardown: Teardown): Promise<SoakResult> {
  const sim = await startSimulator(teardown);
  const env = {
    ...simulatorEnv(sim),
    NERKH_DATA_DIR: tempDataDir(teardown, 'soak'),
    NERKH_REFRESH_SECONDS: '5',
    // Few keys cached, so rotation also exercises the cache's eviction and the store reads.
    NERKH_KEY_CACHE_SIZE: String(Math.max(1, options.keys * 2)),
  };
  const store = await openDrillStore(teardown, env);
  const issue = async () =>
    issueApiKey(store.keys, { org: 'Soak client', purpose: 'soak', rateLimit: 1_000_000 });
  const active = await Promise.all(Array.from({ length: options.keys }, issue));
  const nerkh = await NerkhProcess.start({ role: 'all', env });
  teardown(() => nerkh.stop());
  await waitForRates(nerkh.url, active[0]?.key ?? '');
  // Sockets to the simulator and the database are open now; load adds only its client connections.
  const descriptorsBefore = nerkh.openDescriptors();
  say(`nerkh pid ${nerkh.pid} on ${nerkh.url}; ${descriptorsBefore} descriptors before load`);

  let issued = 0;
  let revoked = 0;
  let rotating = true;
  const rotation = (async () => {
    while (rotating) {
      active.push(await issue());
      issued++;
      const oldest = active.shift();
      if (oldest !== undefined) await store.keys.revokeApiKey(oldest.record.id);
      revoked++;
      await sleep(options.rotateMs);
    }
  })();
  const load = new Load(
    {
      url: nerkh.url,
      concurrency: options.clients,
      key: () => (active[Math.floor(Math.random() * active.length)] ?? active[0])?.key ?? '',
    },
    'soak',
  ).start();

  const samples: RssSample[] = [];
  const started = Date.now();
  while (Date.now() - started < options.seconds * 1000) {
    await sleep(options.sampleSeconds * 1000);
    const sample = {
      second: Math.round((Date.now() - started) / 1000),
      rssKiB: nerkh.rssKiB(),
      descriptors: nerkh.openDescriptors(),
    };
    samples.push(sample);
    say(
      `t=${String(sample.second).padStart(4)} s  rss ${(sample.rssKiB / 1024).toFixed(1)} MiB  fds ${sample.descriptors}  keys issued ${issued} revoked ${revoked}  ${JSON.stringify(load.current.tally)}`,
    );
  }
  rotating = false;
  await rotation;
  const [phase] = await load.stop();
  // Closed client connections leave the server's table once it sees them close.
  await sleep(2000);
  const descriptorsAfter = nerkh.openDescriptors();
  const tally = phase?.tally ?? {};
  if (phase) say(phaseLine(phase));

  const settled = samples.filter((sample) => sample.second >= options.warmup).map((s) => s.rssKiB);
  const sorted = [...settled].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
  const rssSpreadPct =
    median === 0 ? 0 : Math.max(...settled.map((rss) => (Math.abs(rss - median) / median) * 100));
  say(`RSS curve (MiB): ${samples.map((s) => (s.rssKiB / 1024).toFixed(1)).join(' ')}`);
  say(
    `after warm-up (${options.warmup} s): ${settled.length} samples, median ${(median / 1024).toFixed(1)} MiB, largest distance ${rssSpreadPct.toFixed(1)} % (target ±15 %)`,
  );
  say(`descriptors: ${descriptorsBefore} before load, ${descriptorsAfter} after it ended`);
  const unexpected = countOutside(tally, ['200', '403']);
  say(`requests neither 200 nor 403 (a just-revoked key): ${unexpected}`);
  const ok =
    unexpected === 0 && rssSpreadPct <= 15 && descriptorsAfter <= descriptorsBefore + 2 && nerkh.alive;
  return { ok, samples, rssSpreadPct, descriptorsBefore, descriptorsAfter, issued, revoked, unexpected };
}

if (isMain(import.meta.url)) {
  await runDrillCommand<SoakOptions>({
    name: 'soak',
    description:
      'Runs nerkh under steady load while keys are issued and revoked without pause and clients switch\nto the newest keys; samples the resident set and open descriptors. Passes when every request got\n200 (or 403 for a key revoked a moment before), RSS after warm-up stays within ±15 % of its\nmedian, and no descriptors are left behind.',
    options: {
      seconds: { default: 600, help: 'length of the soak, seconds' },
      warmup: { default: 60, help: 'seconds before RSS is held to ±15 %' },
      clients: { default: 8, help: 'concurrent clients' },
      keys: { default: 20, help: 'keys in use at once' },
      rotateMs: { default: 200, help: 'pause between rotations (issue one, revoke the oldest)' },
      sampleSeconds: { default: 10, help: 'RSS and descriptor sampling period' },
    },
    run: soakDrill,
  });
}
