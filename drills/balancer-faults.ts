import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.ts';
import { openStore } from '../src/store/open-store.ts';
import { isMain, runDrillCommand } from './support/drill-cli.ts';
import { type BackendServer, type BackendStat, HaproxyProcess } from './support/haproxy.ts';
import { countOutside, Load, percentile, type Tally } from './support/load.ts';
import { freePort, NerkhProcess } from './support/nerkh-process.ts';
import { OwnPostgres, OwnRedis } from './support/own-servers.ts';
import {
  type HealthBody,
  healthOf,
  issueKeys,
  type Say,
  simulatorEnv,
  sleep,
  startSimulator,
  type Teardown,
  waitForCondition,
  waitForRates,
} from './support/rig.ts';

/**
 * Faults of a deployment, each while a client sends a steady stream of keyed requests through
 * HAProxy (run with ops/compose/haproxy/haproxy.cfg's backend: readiness checks, retries and
 * redispatch) to two or three `serve --role api` processes, with two collectors, on a PostgreSQL
 * and a Redis of the drill's own (the machine's shared servers are never restarted):
 *
 * - `rolling-restart`: every API instance stopped (SIGTERM) and started again, one at a time, the
 *   next once the balancer sends to the restarted one again;
 * - `postgres-restart`: PostgreSQL stopped for `--outage` seconds and started again;
 * - `redis-restart`: Redis stopped for `--outage` seconds and started again;
 * - `kill-leader`: `kill -9` of the leading collector; the standby takes over.
 *
 * Every key the client sends has been served by every instance before (a known key). Each fault
 * reports the requests sent, failed (any answer but 200, or none) and their statuses, and its
 * duration; it passes with none failed.
 */
export const faults = ['rolling-restart', 'postgres-restart', 'redis-restart', 'kill-leader'] as const;
export type Fault = (typeof faults)[number];

export interface BalancerFaultsOptions {
  /** Comma-separated faults, or `all`. */
  fault: string;
  apis: number;
  clients: number;
  /** Pause of each client between its requests, ms: the stream's pace. */
  pauseMs: number;
  /** Seconds of load before and after each fault. */
  steadySeconds: number;
  /** Seconds PostgreSQL or Redis stays stopped. */
  outage: number;
}

export interface FaultResult {
  fault: Fault;
  sent: number;
  failed: number;
  statuses: Tally;
  durationMs: number;
  p99Ms: number;
  /** What the balancer did meanwhile: requests it sent again, and to another instance. */
  balancer: BackendStat;
  ok: boolean;
}

export interface BalancerFaultsResult {
  ok: boolean;
  results: FaultResult[];
}

/** Parses `--fault`: `all`, or a comma-separated list of known faults. */
export function parseFaults(value: string): Fault[] {
  if (value === 'all') return [...faults];
  const chosen = value.split(',').map((name) => name.trim());
  for (const name of chosen)
    if (!(faults as readonly string[]).includes(name))
      throw new Error(`unknown fault ${name}: ${faults.join(', ')}`);
  return chosen as Fault[];
}

interface Api {
  server: BackendServer;
  process: NerkhProcess;
}

/** The processes, servers and balancer the faults are run against. */
class Rig {
  readonly apis: Api[] = [];
  readonly collectors = new Map<string, NerkhProcess>();

  constructor(
    readonly env: Record<string, string>,
    readonly keys: string[],
    readonly postgres: OwnPostgres,
    readonly redis: OwnRedis,
    readonly teardown: Teardown,
  ) {}

  haproxy!: HaproxyProcess;

  async startCollector(name: string): Promise<NerkhProcess> {
    const collector = await NerkhProcess.start({
      role: 'collector',
      env: { ...this.env, NERKH_INSTANCE_ID: name },
    });
    this.teardown(() => collector.stop());
    this.collectors.set(name, collector);
    return collector;
  }

  /** Starts an API instance and has it serve every key once, so each is known to it. */
  async startApi(server: BackendServer): Promise<NerkhProcess> {
    const api = await NerkhProcess.start({
      role: 'api',
      port: server.port,
      // A drain longer than HAProxy takes to see /readyz fail (2 s, then 0.5 s, fall 2: at most
      // 2.5 s), as docs/operations.md#shutdown asks of a balancer's checks.
      env: {
        ...this.env,
        NERKH_INSTANCE_ID: server.name,
        NERKH_METRICS_PORT: String(server.opsPort),
        NERKH_DRAIN_SECONDS: '3',
      },
    });
    this.teardown(() => api.stop());
    for (const key of this.keys) await waitForRates(api.url, key);
    return api;
  }

  /** Resolves once the balancer sends requests to every API instance. */
  async allServersUp(timeoutMs: number): Promise<void> {
    await waitForCondition(async () => (await this.haproxy.usableServers()) === this.apis.length, timeoutMs);
  }

  /** The health every instance reports, through the balancer. */
  async health(): Promise<HealthBody | null> {
    const health = await healthOf(this.haproxy.url);
    return typeof health === 'string' ? null : health;
  }

  /** Resolves once a snapshot committed after `since` is served. */
  async snapshotAfter(since: number, timeoutMs: number): Promise<void> {
    await waitForCondition(async () => {
      const updated = (await this.health())?.updated_at;
      return updated !== null && updated !== undefined && Date.parse(updated) > since;
    }, timeoutMs);
  }
}

async function startRig(options: BalancerFaultsOptions, say: Say, teardown: Teardown): Promise<Rig> {
  const sim = await startSimulator(teardown);
  const postgres = await OwnPostgres.start(teardown);
  const redis = await OwnRedis.start(teardown);
  const dataDir = mkdtempSync(join(tmpdir(), 'nerkh-drill-balancer-'));
  teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  say(`own PostgreSQL on port ${postgres.port}, own Redis on port ${redis.port}`);
  const env = {
    ...simulatorEnv(sim),
    NERKH_DATA_DIR: dataDir,
    NERKH_DATABASE_URL: postgres.url,
    NERKH_DATABASE_POOL_SIZE: '4',
    NERKH_REDIS_URL: redis.url,
    // On a machine running other work, an answer can take longer than the 250 ms default, and the
    // limits would go local for nothing.
    NERKH_REDIS_TIMEOUT_MS: '2000',
    NERKH_REFRESH_SECONDS: '2',
    NERKH_COLLECTOR_LEASE_SECONDS: '6',
  };
  // The keys are issued as `nerkh keys issue` does, and the store closed again before any fault.
  const store = await openStore(loadConfig({ ...env, LOG_LEVEL: 'silent' }));
  const keys = await issueKeys(store, 5).finally(() => store.close());
  const rig = new Rig(env, keys, postgres, redis, teardown);
  await rig.startCollector('collector-1');
  await rig.startCollector('collector-2');
  for (let index = 1; index <= options.apis; index++) {
    const server = { name: `api-${index}`, port: await freePort(), opsPort: await freePort() };
    rig.apis.push({ server, process: await rig.startApi(server) });
  }
  rig.haproxy = await HaproxyProcess.start(
    rig.apis.map((api) => api.server),
    { publicPort: await freePort(), healthPort: await freePort() },
    teardown,
  );
  await rig.allServersUp(30_000);
  say(`HAProxy at ${rig.haproxy.url} in front of ${rig.apis.map((api) => api.server.name).join(', ')}`);
  return rig;
}

/** The fault itself; resolves once the service is whole again. */
async function inflict(rig: Rig, fault: Fault, options: BalancerFaultsOptions, say: Say): Promise<void> {
  switch (fault) {
    case 'rolling-restart': {
      for (const api of rig.apis) {
        const started = Date.now();
        const code = await api.process.stop();
        const stopped = Date.now();
        api.process = await rig.startApi(api.server);
        const ready = Date.now();
        await rig.allServersUp(30_000);
        say(
          `${api.server.name}: stopped (exit ${code}) in ${stopped - started} ms, serving again ${ready - stopped} ms later, back in the balancer after ${Date.now() - ready} ms`,
        );
      }
      return;
    }
    case 'postgres-restart': {
      await rig.postgres.stop();
      const stopped = Date.now();
      say(`PostgreSQL stopped for ${options.outage} s`);
      await sleep(options.outage * 1000);
      await rig.postgres.begin();
      const back = Date.now();
      await rig.snapshotAfter(back, 60_000);
      await rig.allServersUp(30_000);
      say(`PostgreSQL back after ${back - stopped} ms; a new snapshot served ${Date.now() - back} ms later`);
      return;
    }
    case 'redis-restart': {
      await rig.redis.stop();
      const stopped = Date.now();
      say(`Redis stopped for ${options.outage} s`);
      await sleep(options.outage * 1000);
      await rig.redis.begin();
      const back = Date.now();
      await waitForCondition(async () => {
        for (const api of rig.apis) {
          const health = await healthOf(api.process.url);
          if (typeof health === 'string' || health.checks['limiter:shared']?.[0]?.status !== 'pass')
            return false;
        }
        return true;
      }, 30_000);
      say(`Redis back after ${back - stopped} ms; limits shared again ${Date.now() - back} ms later`);
      return;
    }
    case 'kill-leader': {
      const leaderOf = async () => (await rig.health())?.checks['collector:leader']?.[0]?.observedValue;
      const leader = String(await leaderOf());
      const process = rig.collectors.get(leader);
      if (process === undefined) throw new Error(`the leader ${leader} is none of the drill's collectors`);
      await process.kill();
      const killed = Date.now();
      say(`kill -9 of the leading collector ${leader}`);
      await waitForCondition(async () => {
        const now = await leaderOf();
        return now !== undefined && now !== null && now !== leader;
      }, 60_000);
      const takenOver = Date.now();
      await rig.snapshotAfter(killed, 60_000);
      say(
        `${String(await leaderOf())} leads ${takenOver - killed} ms after the kill; a new snapshot served ${Date.now() - killed} ms after it`,
      );
      // Started again, so a fault that follows has a standby too.
      await rig.startCollector(leader);
      return;
    }
  }
}

function minus(after: BackendStat, before: BackendStat): BackendStat {
  return {
    retries: after.retries - before.retries,
    redispatches: after.redispatches - before.redispatches,
    responses5xx: after.responses5xx - before.responses5xx,
  };
}

export async function balancerFaultsDrill(
  options: BalancerFaultsOptions,
  say: Say,
  teardown: Teardown,
): Promise<BalancerFaultsResult> {
  const chosen = parseFaults(options.fault);
  const rig = await startRig(options, say, teardown);
  const results: FaultResult[] = [];
  for (const fault of chosen) {
    let next = 0;
    const load = new Load({
      url: rig.haproxy.url,
      concurrency: options.clients,
      pauseMs: options.pauseMs,
      key: () => rig.keys[next++ % rig.keys.length] ?? '',
    });
    const statsBefore = await rig.haproxy.backend();
    const started = Date.now();
    load.start();
    await sleep(options.steadySeconds * 1000);
    await inflict(rig, fault, options, (line) => say(`${fault}: ${line}`));
    await sleep(options.steadySeconds * 1000);
    const [phase] = await load.stop();
    const durationMs = Date.now() - started;
    const balancer = minus(await rig.haproxy.backend(), statsBefore);
    const statuses = phase?.tally ?? {};
    const sent = Object.values(statuses).reduce((sum, count) => sum + count, 0);
    const failed = countOutside(statuses, ['200']);
    const result: FaultResult = {
      fault,
      sent,
      failed,
      statuses,
      durationMs,
      p99Ms: percentile(phase?.latencies ?? [], 99),
      balancer,
      ok: failed === 0 && sent > 0,
    };
    results.push(result);
    say(
      `${fault}: sent ${sent}, failed ${failed}, statuses ${JSON.stringify(statuses)}, ${(durationMs / 1000).toFixed(1)} s, p99 ${result.p99Ms.toFixed(1)} ms; balancer retried ${balancer.retries}, redispatched ${balancer.redispatches}, answered 5xx ${balancer.responses5xx}`,
    );
  }
  return { ok: results.every((result) => result.ok), results };
}

if (isMain(import.meta.url)) {
  await runDrillCommand<BalancerFaultsOptions>({
    name: 'balancer-faults',
    description: `Runs API instances behind HAProxy (ops/compose/haproxy/haproxy.cfg's backend), two collectors, and a
PostgreSQL and a Redis of the drill's own, and while a client sends keyed requests through the
balancer: restarts every API instance one at a time, restarts PostgreSQL, restarts Redis, and
kill -9s the leading collector. Passes when no request with a known key failed.
Faults: ${faults.join(', ')}.`,
    options: {
      fault: { default: 'all', help: 'the faults to run, comma-separated, or all' },
      apis: { default: 3, help: 'API instances behind the balancer' },
      clients: { default: 4, help: 'concurrent clients' },
      pauseMs: { default: 5, help: "each client's pause between requests, ms" },
      steadySeconds: { default: 10, help: 'seconds of load before and after each fault' },
      outage: { default: 10, help: 'seconds PostgreSQL or Redis stays stopped' },
    },
    run: balancerFaultsDrill,
  });
}
