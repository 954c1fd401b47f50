import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchKey } from './fixture.ts';
import { freePort } from './free-port.ts';
import { get } from './http-get.ts';
import { type NerkhProcess, startNerkh } from './nerkh.ts';
import { type Phase, phases, tallyLogByPhase } from './nerkh-log.ts';
import { CuttableProxy } from './tcp-proxy.ts';
import { runWrk } from './wrk.ts';

export interface OutageSetup {
  dataDir: string;
  publicUrl: string;
  workDir: string;
  redisUrl: string;
  readyKey: string;
  /** Keys the load rotates through, with a limit it cannot reach. */
  loadKeys: readonly BenchKey[];
  /** A key issued with `limit`, sent every `limitedEvery`th request, so the limit refuses some. */
  limitedKey: BenchKey;
  limit: number;
  limitedEvery: number;
  phaseSeconds: number;
  connections: number;
  cpu?: number;
  loadCpu?: number;
}

interface HealthSample {
  atMs: number;
  /** `pass`, `warn` or `fail`, and the checks that did not pass; or why there was no answer. */
  summary: string;
}

async function healthOf(url: string): Promise<string> {
  try {
    const answer = await get(`${url}/v1/health`, {});
    const body = JSON.parse(answer.body.toString('utf8')) as {
      status: string;
      checks?: Record<string, { status: string }[]>;
    };
    const notPassing = Object.entries(body.checks ?? {})
      .filter(([, entries]) => entries.some((entry) => entry.status !== 'pass'))
      .map(([name]) => name);
    return notPassing.length === 0 ? body.status : `${body.status} (${notPassing.join(', ')})`;
  } catch (error) {
    return `no answer: ${(error as Error).message}`;
  }
}

/** `pass × 9, warn (limits) × 1`, in the order the states were first seen. */
function formatSamples(samples: HealthSample[]): string {
  const counts = new Map<string, number>();
  for (const { summary } of samples) counts.set(summary, (counts.get(summary) ?? 0) + 1);
  return [...counts].map(([summary, count]) => `${summary} × ${count}`).join(', ') || 'no sample';
}

/**
 * nerkh with its limits in Redis, under load, while its connection to Redis is taken away: the
 * load runs `phaseSeconds` with Redis reachable, `phaseSeconds` with a proxy in front of Redis cut
 * (connections dropped, new ones refused; Redis itself keeps running for whoever else uses it),
 * and `phaseSeconds` after the proxy listens again. Status counts per phase come from nerkh's
 * access log (one line per response, with its time), socket errors from the load generator, and
 * /v1/health is read twice a second throughout. Returns whether every response was a 200 or a 429,
 * the load saw no socket error, and the limited key was never admitted beyond its limit.
 */
export async function measureRedisOutage(setup: OutageSetup): Promise<boolean> {
  const target = new URL(setup.redisUrl);
  const proxy = await CuttableProxy.start(target.hostname, Number(target.port || 6379), await freePort());
  const proxied = new URL(setup.redisUrl);
  proxied.port = String(proxy.port);
  const keysFile = join(setup.workDir, 'outage-keys.txt');
  const lines = setup.loadKeys.map(({ key }, index) =>
    index % setup.limitedEvery === 0 ? `${setup.limitedKey.key}\n${key}` : key,
  );
  writeFileSync(keysFile, `${lines.join('\n')}\n`);
  const logFile = join(setup.workDir, 'nerkh-outage.log');
  let nerkh: NerkhProcess | null = null;
  try {
    nerkh = await startNerkh({
      dataDir: setup.dataDir,
      port: await freePort(),
      publicUrl: setup.publicUrl,
      logFile,
      readyKey: setup.readyKey,
      redisUrl: proxied.toString(),
      ...(setup.cpu === undefined ? {} : { cpu: setup.cpu }),
    });
    const url = nerkh.url;
    const phaseMs = setup.phaseSeconds * 1000;
    const samples: HealthSample[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const atMs = Date.now();
        samples.push({ atMs, summary: await healthOf(url) });
        await sleep(Math.max(0, 500 - (Date.now() - atMs)));
      }
    })();
    const fromMs = Date.now();
    const load = runWrk({
      url: `${url}/v1/rates`,
      connections: setup.connections,
      durationSeconds: 3 * setup.phaseSeconds,
      keysFile,
      ...(setup.loadCpu === undefined ? {} : { cpu: setup.loadCpu }),
      workDir: setup.workDir,
    });
    await sleep(phaseMs);
    const cutAtMs = Date.now();
    await proxy.cut();
    await sleep(phaseMs - (Date.now() - cutAtMs));
    const restoredAtMs = Date.now();
    await proxy.restore();
    const result = await load;
    const untilMs = Date.now();
    sampling = false;
    await sampler;
    const running = nerkh;
    nerkh = null;
    // A clean stop writes out every log line still collected.
    await running.stop();

    const tallies = tallyLogByPhase(
      readFileSync(logFile, 'utf8'),
      { fromMs, cutAtMs, restoredAtMs, untilMs },
      setup.limitedKey.id,
    );
    const bounds: Record<Phase, [number, number]> = {
      before: [fromMs, cutAtMs],
      during: [cutAtMs, restoredAtMs],
      after: [restoredAtMs, untilMs],
    };
    console.log('');
    console.log(
      `Redis cut under load: nerkh with NERKH_REDIS_URL through a TCP proxy to ${target.host}; ${setup.phaseSeconds} s before, ${setup.phaseSeconds} s with the proxy cut (connections dropped, new ones refused), ${setup.phaseSeconds} s after it listens again; ${setup.connections} connections, keys rotated, every ${setup.limitedEvery}th request with a key limited to ${setup.limit} per window`,
    );
    let unexpected = 0;
    let limitedAdmitted = 0;
    for (const phase of phases) {
      const tally = tallies[phase];
      const statuses = [...tally.statuses].sort(([a], [b]) => a - b);
      unexpected += statuses
        .filter(([status]) => status !== 200 && status !== 429)
        .reduce((n, [, c]) => n + c, 0);
      limitedAdmitted += tally.limitedKeyAdmitted;
      const [from, to] = bounds[phase];
      const health = samples.filter(({ atMs }) => atMs >= from && atMs < to);
      console.log(
        `  ${phase.padEnd(6)} ${statuses.map(([status, count]) => `${status} × ${count}`).join(', ') || 'no response'}; limited key admitted ${tally.limitedKeyAdmitted}; /v1/health: ${formatSamples(health)}`,
      );
      for (const event of tally.events) console.log(`         logged: ${event}`);
    }
    const pass = unexpected === 0 && result.socketErrors === 0 && limitedAdmitted <= setup.limit;
    console.log(
      `  responses other than 200 and 429: ${unexpected}; socket errors and timeouts (wrk): ${result.socketErrors}; the limited key admitted ${limitedAdmitted} in all (limit ${setup.limit} per window, one instance)  ${pass ? 'PASS' : 'MISS'}`,
    );
    return pass;
  } finally {
    await nerkh?.stop().catch(() => undefined);
    await proxy.cut();
  }
}
