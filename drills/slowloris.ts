import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isMain, runDrillCommand } from './support/drill-cli.ts';
import { countOutside, Load, type PhaseResult, percentile, phaseLine } from './support/load.ts';
import { NerkhProcess } from './support/nerkh-process.ts';
import {
  issueKeys,
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
 * Slowloris and its slow-body cousin, with Debian's `slowhttptest`: an attacker opens many
 * connections and sends headers (or a body) a few bytes at a time, so that a server waiting on
 * each one runs out of connections. nerkh's headers and request timeouts close them; meanwhile a
 * legitimate client, opening a new connection per request, measures what it gets.
 */
export interface SlowlorisOptions {
  connections: number;
  /** Length of each attack, seconds. */
  seconds: number;
  /** New attack connections per second. */
  rate: number;
  /** The p99 target of the legitimate client during the attacks, ms (reported; CI does not time). */
  p99Ms: number;
}

export const slowhttptestPath = '/usr/bin/slowhttptest';

export interface AttackResult {
  mode: 'slow headers' | 'slow body';
  /** Most attack connections open at once, as slowhttptest counted them. */
  peakConnected: number;
  /** Attack connections the server closed by the end. */
  closed: number;
}

export interface SlowlorisResult {
  ok: boolean;
  phases: PhaseResult[];
  attacks: AttackResult[];
  /** p99 of the legitimate client during the attacks, ms. */
  p99Ms: number;
  /** The legitimate client's requests that did not get 200, during and around the attacks. */
  failed: number;
}

export async function slowlorisDrill(
  options: SlowlorisOptions,
  say: Say,
  teardown: Teardown,
): Promise<SlowlorisResult> {
  const sim = await startSimulator(teardown);
  const dataDir = tempDataDir(teardown, 'slowloris');
  const env = { ...simulatorEnv(sim), NERKH_DATA_DIR: dataDir };
  const [key = ''] = await issueKeys(await openDrillStore(teardown, env), 1);
  const nerkh = await NerkhProcess.start({ role: 'all', env });
  teardown(() => nerkh.stop());
  await waitForRates(nerkh.url, key);
  say(`nerkh on ${nerkh.url} (default timeouts: headers 10 s, request 30 s)`);

  // The legitimate client: two loops, a new connection per request, 20 ms apart.
  const client = new Load({ url: nerkh.url, key: () => key, concurrency: 2, pauseMs: 20, keepAlive: false });
  client.start();
  await sleep(3000);
  const attacks: AttackResult[] = [];
  for (const [mode, flag, path] of [
    ['slow headers', '-H', '/v1/rates'],
    ['slow body', '-B', '/contact'],
  ] as const) {
    client.phase(mode);
    say(`${mode}: ${options.connections} connections at ${options.rate}/s for ${options.seconds} s`);
    attacks.push(await attack(mode, flag, `${nerkh.url}${path}`, options, dataDir, say));
    say(`${mode}: ${phaseLine(client.current)}; attacker peak ${attacks.at(-1)?.peakConnected} connected`);
  }
  client.phase('after');
  await sleep(3000);
  const phases = await client.stop();
  for (const phase of phases) say(phaseLine(phase));
  const during = phases.filter((phase) => phase.phase.startsWith('slow'));
  const p99Ms = percentile(
    during.flatMap((phase) => phase.latencies),
    99,
  );
  const failed = phases.reduce((sum, phase) => sum + countOutside(phase.tally, ['200']), 0);
  say(
    `legitimate client during the attacks: p99 ${p99Ms.toFixed(1)} ms (target ≤ ${options.p99Ms} ms); ${failed} failed`,
  );
  const ok = failed === 0 && p99Ms <= options.p99Ms && nerkh.alive;
  return { ok, phases, attacks, p99Ms, failed };
}

/** Runs slowhttptest until it ends; its CSV (one row a second) says how many connections it held. */
async function attack(
  mode: AttackResult['mode'],
  flag: '-H' | '-B',
  url: string,
  options: SlowlorisOptions,
  dir: string,
  say: Say,
): Promise<AttackResult> {
  const prefix = join(dir, `slowhttptest${flag}`);
  const args = [
    flag,
    ...['-c', String(options.connections), '-r', String(options.rate)],
    // A few bytes every 3 s: each connection looks alive, never finishes its request.
    ...['-i', '3', '-x', '10', '-l', String(options.seconds), '-p', '3'],
    ...['-g', '-o', prefix, '-u', url],
  ];
  const child = spawn(slowhttptestPath, args, { stdio: 'ignore' });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const csv = `${prefix}.csv`;
  if (!existsSync(csv)) throw new Error(`slowhttptest ${args.join(' ')} exited ${code} without a report`);
  // Seconds,Closed,Pending,Connected,Service Available
  const rows = readFileSync(csv, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => line.split(',').map(Number));
  const peakConnected = Math.max(0, ...rows.map((row) => row[3] ?? 0));
  const closed = rows.at(-1)?.[1] ?? 0;
  say(`${mode}: slowhttptest held up to ${peakConnected} connections; the server closed ${closed}`);
  return { mode, peakConnected, closed };
}

if (isMain(import.meta.url)) {
  await runDrillCommand<SlowlorisOptions>({
    name: 'slowloris',
    description:
      'Attacks nerkh with slowhttptest (slow headers, then slow bodies) while a legitimate client\nrequests /v1/rates on a new connection every 20 ms. Passes when none of its requests fails and\nits p99 during the attacks stays within the target.',
    options: {
      connections: { default: 1000, help: 'attack connections' },
      seconds: { default: 30, help: 'length of each attack' },
      rate: { default: 200, help: 'new attack connections per second' },
      p99Ms: { default: 50, help: "the legitimate client's p99 target during the attacks, ms" },
    },
    run: slowlorisDrill,
  });
}
