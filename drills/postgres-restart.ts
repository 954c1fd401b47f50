import { TcpProxyProcess } from '../test/support/tcp-proxy.ts';
import { isMain, runDrillCommand } from './support/drill-cli.ts';
import { countOutside, Load, type PhaseResult, phaseLine } from './support/load.ts';
import { NerkhProcess } from './support/nerkh-process.ts';
import { createDrillDatabase, inspector, restartPostgres, throughPort } from './support/postgres.ts';
import {
  healthLine,
  healthOf,
  issueKeys,
  openDrillStore,
  type Say,
  simulatorEnv,
  sleep,
  startSimulator,
  type Teardown,
  tempDataDir,
  waitForCondition,
  waitForRates,
} from './support/rig.ts';

/**
 * PostgreSQL goes away under load. Keys already seen are in each API process's cache, so their
 * requests keep getting 200 from the snapshot in memory; /v1/health says the store cannot be
 * reached, then that it can again; nothing stored is lost.
 *
 * `--fault restart` stops the machine's PostgreSQL for `--outage` seconds and starts it again
 * (every user of it sees the outage);
 * `--fault cut` drops nerkh's connections through a TCP proxy and refuses new ones for
 * `--outage` seconds, which leaves the server itself running for everyone else (the CI test does this).
 */
export interface PostgresRestartOptions {
  fault: string;
  /** Seconds of load before and after the fault. */
  phaseSeconds: number;
  /** How long PostgreSQL stays stopped, or the connection cut, seconds. */
  outage: number;
  clients: number;
}

export interface PostgresRestartResult {
  ok: boolean;
  phases: PhaseResult[];
  /** Distinct health states seen, in order (`status; check status value; …`). */
  healthStates: string[];
  dataIntact: boolean;
  /** Snapshots committed after the fault (the collector resumed). */
  snapshotsAfter: number;
}

export async function postgresRestartDrill(
  options: PostgresRestartOptions,
  say: Say,
  teardown: Teardown,
): Promise<PostgresRestartResult> {
  if (options.fault !== 'restart' && options.fault !== 'cut') throw new Error('--fault is restart or cut');
  const sim = await startSimulator(teardown);
  const databaseUrl = await createDrillDatabase(teardown);
  let nerkhUrl = databaseUrl;
  let proxy: TcpProxyProcess | null = null;
  if (options.fault === 'cut') {
    proxy = await TcpProxyProcess.start(Number(new URL(databaseUrl).port || 5432));
    teardown(() => proxy?.close());
    nerkhUrl = throughPort(databaseUrl, proxy.port);
  }
  const env = {
    ...simulatorEnv(sim),
    NERKH_DATA_DIR: tempDataDir(teardown, 'postgres'),
    NERKH_DATABASE_URL: nerkhUrl,
    NERKH_REFRESH_SECONDS: '2',
    NERKH_COLLECTOR_LEASE_SECONDS: '6',
  };
  const keys = await issueKeys(
    await openDrillStore(teardown, { ...env, NERKH_DATABASE_URL: databaseUrl }),
    5,
  );
  const nerkh = await NerkhProcess.start({ role: 'all', env });
  teardown(() => nerkh.stop());
  for (const key of keys) await waitForRates(nerkh.url, key);
  const db = inspector(databaseUrl, teardown);
  const stored = async () => {
    const { rows } = await db.query<{ keys: string; ids: number[]; latest: string }>(
      `SELECT (SELECT count(*) FROM api_keys) AS keys,
              (SELECT coalesce(array_agg(id::int ORDER BY id), '{}') FROM snapshots) AS ids,
              (SELECT md5(rates::text) FROM snapshots ORDER BY id DESC LIMIT 1) AS latest`,
    );
    return rows[0] as { keys: string; ids: number[]; latest: string };
  };

  const healthStates: string[] = [];
  let watching = true;
  const watcher = (async () => {
    while (watching) {
      const line = healthLine(await healthOf(nerkh.url).catch((error: Error) => error.message));
      if (healthStates.at(-1) !== line.replace(/ \d+(;|$)/g, ' …$1')) {
        healthStates.push(line.replace(/ \d+(;|$)/g, ' …$1'));
        say(`health: ${line}`);
      }
      await sleep(250);
    }
  })();

  let next = 0;
  const load = new Load({
    url: nerkh.url,
    concurrency: options.clients,
    key: () => keys[next++ % keys.length] ?? '',
  });
  load.start();
  await sleep(options.phaseSeconds * 1000);
  const before = await stored();
  say(
    `before: ${phaseLine(load.current)}; stored: ${before.keys} keys, snapshots ${before.ids.at(0)}–${before.ids.at(-1)}`,
  );

  load.phase('during');
  if (proxy !== null) {
    say(`cutting nerkh's PostgreSQL connections for ${options.outage} s (the server keeps running)`);
    await proxy.cut();
    await sleep(options.outage * 1000);
    await proxy.restore();
  } else {
    say(`restarting PostgreSQL (pg_ctlcluster stop, ${options.outage} s, start)`);
    const startedAt = Date.now();
    await restartPostgres(options.outage * 1000);
    say(`PostgreSQL back after ${Date.now() - startedAt} ms`);
  }
  const faultEnded = Date.now();
  load.phase('recover');
  // Recovered: a snapshot committed after the fault, and health seeing the store again.
  await waitForCondition(async () => {
    const health = await healthOf(nerkh.url);
    return (
      typeof health !== 'string' &&
      health.checks['collector:report']?.[0]?.status === 'pass' &&
      (await freshSnapshotCount(db, before.ids)) > 0
    );
  }, 60_000);
  say(`recovered ${Date.now() - faultEnded} ms after the fault ended`);
  load.phase('after');
  await sleep(options.phaseSeconds * 1000);
  const phases = await load.stop();
  watching = false;
  await watcher;
  const after = await stored();
  for (const phase of phases) say(phaseLine(phase));

  // Intact: every key still there, every snapshot from before still there (retention is 1000) and
  // the latest one unchanged byte for byte.
  const { rows } = await db.query<{ latest: string }>(
    'SELECT md5(rates::text) AS latest FROM snapshots WHERE id = $1',
    [before.ids.at(-1)],
  );
  const dataIntact =
    after.keys === before.keys &&
    before.ids.every((id) => after.ids.includes(id)) &&
    rows[0]?.latest === before.latest;
  const snapshotsAfter = await freshSnapshotCount(db, before.ids);
  say(
    `stored after: ${after.keys} keys, snapshots ${after.ids.at(0)}–${after.ids.at(-1)}; data intact: ${dataIntact}; ${snapshotsAfter} snapshots since`,
  );
  const failed = phases.reduce((sum, phase) => sum + countOutside(phase.tally, ['200']), 0);
  say(`requests with cached keys that did not get 200: ${failed}`);
  const sawOutage = healthStates.some((state) => !state.startsWith('pass'));
  const ok = failed === 0 && dataIntact && snapshotsAfter > 0 && sawOutage && nerkh.alive;
  return { ok, phases, healthStates, dataIntact, snapshotsAfter };
}

async function freshSnapshotCount(db: import('pg').Pool, known: number[]): Promise<number> {
  const { rows } = await db.query<{ count: string }>('SELECT count(*) FROM snapshots WHERE id > $1', [
    known.at(-1) ?? 0,
  ]);
  return Number(rows[0]?.count ?? 0);
}

if (isMain(import.meta.url)) {
  await runDrillCommand<PostgresRestartOptions>({
    name: 'postgres-restart',
    description:
      "Runs nerkh on PostgreSQL under load with cached keys and takes PostgreSQL away: --fault restart\nrestarts the machine's cluster (everyone using it sees the outage), --fault cut drops nerkh's\nconnections through a TCP proxy. Passes when every request got 200, /v1/health showed the outage\nand the recovery, the collector committed again and no stored key or snapshot was lost.",
    options: {
      fault: {
        default: 'restart',
        help: "restart (the machine's PostgreSQL) or cut (a proxy in front of it)",
      },
      phaseSeconds: { default: 10, help: 'seconds of load before and after the fault' },
      outage: { default: 5, help: 'seconds PostgreSQL stays stopped (restart) or cut off (cut)' },
      clients: { default: 8, help: 'concurrent clients' },
    },
    run: postgresRestartDrill,
  });
}
