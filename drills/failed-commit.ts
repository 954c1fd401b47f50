import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmdirSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMain, runDrillCommand } from './support/drill-cli.ts';
import { countOutside, Load, type PhaseResult, phaseLine } from './support/load.ts';
import { NerkhProcess } from './support/nerkh-process.ts';
import {
  type HealthBody,
  healthLine,
  healthOf,
  issueKeys,
  openDrillStore,
  type Say,
  simulatorEnv,
  sleep,
  startSimulator,
  type Teardown,
  waitForCondition,
  waitForRates,
} from './support/rig.ts';

/**
 * Snapshot commits that fail: nerkh's data directory is a small filesystem of its own (tmpfs)
 * that the drill fills to the last byte (`--mode full`) or remounts read-only (`--mode readonly`).
 * The collector's commits fail and say so in the log; clients keep getting 200 from the last good
 * snapshot, whose age grows in /v1/health; once space returns, the next commit succeeds.
 * Mounting needs root (or CAP_SYS_ADMIN): without it the drill says so and does not run.
 */
export interface FailedCommitOptions {
  mode: string;
  /** How long commits keep failing, seconds. */
  seconds: number;
  clients: number;
}

export interface FailedCommitResult {
  ok: boolean;
  phases: PhaseResult[];
  /** 'snapshot commit failed' lines the collector logged, with their reason. */
  failedCommits: string[];
  /** /v1/health at the end of the failure (the age grown; see content/docs.md "GET /v1/health"). */
  healthWhileFailing: HealthBody | string;
  ageBefore: number;
  ageWhileFailing: number;
  /** Snapshot (its ETag) served before, at the first failed commit, at the end of the failure, and after. */
  servedIds: { before: string; lastGood: string; during: string; after: string };
}

/** Why a small filesystem cannot be mounted here, or null when it can. */
export function tmpfsUnavailable(): string | null {
  if (process.getuid?.() !== 0) return 'mounting a tmpfs needs root';
  const probe = mkdtempSync(join(tmpdir(), 'nerkh-tmpfs-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe], { stdio: 'pipe' });
    execFileSync('umount', [probe], { stdio: 'pipe' });
    return null;
  } catch (error) {
    return `mount -t tmpfs failed: ${(error as Error).message.split('\n')[0]}`;
  } finally {
    rmdirSync(probe);
  }
}

/** Writes zeroes into `file` until the filesystem has no byte left. */
function fillUp(file: string): number {
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(64 * 1024);
  let written = 0;
  try {
    for (;;) written += writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
    // The last partial block, down to single bytes.
    for (let size = 4096; size >= 1; size = Math.floor(size / 2)) {
      try {
        for (;;) written += writeSync(fd, chunk.subarray(0, size));
      } catch {}
    }
  } finally {
    closeSync(fd);
  }
  return written;
}

export async function failedCommitDrill(
  options: FailedCommitOptions,
  say: Say,
  teardown: Teardown,
): Promise<FailedCommitResult> {
  if (options.mode !== 'full' && options.mode !== 'readonly') throw new Error('--mode is full or readonly');
  const sim = await startSimulator(teardown);
  const dataDir = mkdtempSync(join(tmpdir(), 'nerkh-drill-full-'));
  teardown(() => rmdirSync(dataDir));
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', dataDir]);
  teardown(() => execFileSync('umount', ['--lazy', dataDir]));
  say(`data directory ${dataDir}: an 8 MiB tmpfs`);
  const env = { ...simulatorEnv(sim), NERKH_DATA_DIR: dataDir, NERKH_REFRESH_SECONDS: '2' };
  const [key = ''] = await issueKeys(await openDrillStore(teardown, env), 1);
  const nerkh = await NerkhProcess.start({ role: 'all', env });
  teardown(() => nerkh.stop());
  await waitForRates(nerkh.url, key);
  const servedId = async () =>
    (await fetch(`${nerkh.url}/v1/rates`, { headers: { 'X-API-Key': key } })).headers.get('etag') ?? '';
  const ageOf = (health: HealthBody | string) =>
    typeof health === 'string' ? -1 : Number(health.checks['snapshot:age']?.[0]?.observedValue ?? -1);

  const load = new Load({ url: nerkh.url, key: () => key, concurrency: options.clients }, 'before');
  load.start();
  await sleep(3000);
  const before = await servedId();
  const ageBefore = ageOf(await healthOf(nerkh.url));
  say(`${phaseLine(load.current)}; serving ${before}, age ${ageBefore} s`);

  load.phase('failing');
  const filler = join(dataDir, 'filler');
  if (options.mode === 'full') {
    say(`filled the filesystem: ${fillUp(filler)} bytes of filler`);
  } else {
    execFileSync('mount', ['-o', 'remount,ro', dataDir]);
    say('remounted the data directory read-only');
  }
  const failuresBefore = nerkh.events.filter((line) => line.includes('snapshot commit failed')).length;
  await nerkh.waitForEvent(/snapshot commit failed/, 30_000, 'a failed commit');
  // The last good snapshot: committed before the space ran out, served from now on.
  const lastGood = await servedId();
  say(`the first commit failed; serving ${lastGood}`);
  await sleep(options.seconds * 1000);
  const healthWhileFailing = await healthOf(nerkh.url);
  const during = await servedId();
  const ageWhileFailing = ageOf(healthWhileFailing);
  const failedCommits = nerkh.events
    .filter((line) => line.includes('snapshot commit failed'))
    .slice(failuresBefore)
    .map((line) => {
      const entry = JSON.parse(line) as { msg: string; err?: { message?: string; code?: string } };
      return `${entry.msg}: ${entry.err?.code ?? ''} ${entry.err?.message ?? ''}`;
    });
  say(`${phaseLine(load.current)}; serving ${during}, age ${ageWhileFailing} s`);
  say(`health while failing: ${healthLine(healthWhileFailing)}`);
  say(`${failedCommits.length} commits failed, e.g. "${failedCommits[0]}"`);

  load.phase('after');
  if (options.mode === 'full') rmSync(filler);
  else execFileSync('mount', ['-o', 'remount,rw', dataDir]);
  const freedAt = Date.now();
  await waitForCondition(async () => (await servedId()) !== during, 30_000);
  const after = await servedId();
  say(`space back: a new snapshot (${after}) served ${Date.now() - freedAt} ms later`);
  await sleep(2000);
  const phases = await load.stop();
  for (const phase of phases) say(phaseLine(phase));
  const failed = phases.reduce((sum, phase) => sum + countOutside(phase.tally, ['200']), 0);
  say(`requests that did not get 200: ${failed}`);
  const ok =
    failed === 0 &&
    failedCommits.length > 0 &&
    during === lastGood &&
    ageWhileFailing > ageBefore &&
    after !== during &&
    nerkh.alive;
  return {
    ok,
    phases,
    failedCommits,
    healthWhileFailing,
    ageBefore,
    ageWhileFailing,
    servedIds: { before, lastGood, during, after },
  };
}

if (isMain(import.meta.url)) {
  const unavailable = tmpfsUnavailable();
  if (unavailable !== null) {
    process.stdout.write(`failed-commit: cannot run: ${unavailable}\n`);
    process.exit(1);
  }
  await runDrillCommand<FailedCommitOptions>({
    name: 'failed-commit',
    description:
      "Puts nerkh's data directory on an 8 MiB tmpfs and fills it (--mode full) or remounts it read-only\n(--mode readonly) under load, so snapshot commits fail. Passes when every request got 200 from the\nlast good snapshot, its age grew, the failures were logged, and the first commit after space\nreturned succeeded. Needs root (mount).",
    options: {
      mode: { default: 'full', help: 'full (no space left) or readonly (a read-only filesystem)' },
      seconds: { default: 10, help: 'seconds commits keep failing' },
      clients: { default: 4, help: 'concurrent clients' },
    },
    run: failedCommitDrill,
  });
}
