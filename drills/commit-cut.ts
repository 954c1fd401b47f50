import { TcpProxyProcess } from '../test/support/tcp-proxy.ts';
import { isMain, runDrillCommand } from './support/drill-cli.ts';
import { NerkhProcess } from './support/nerkh-process.ts';
import { createDrillDatabase, inspector, throughPort } from './support/postgres.ts';
import {
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
 * The collector's connection to PostgreSQL breaks in the middle of a commit: a TCP proxy between
 * the collector and the server lets half of the commit statement through and cuts every
 * connection. The commit is one statement, so PostgreSQL applies all of it or none: no snapshot
 * may be left with part of its rows, the API keeps serving a whole one, and once the network is
 * back the collector's next commit succeeds.
 */
export interface CommitCutOptions {
  /** How long the connection stays cut, seconds. */
  outage: number;
  /** Cuts, one after the other. */
  cuts: number;
}

export interface CommitCutResult {
  ok: boolean;
  /** Per cut: the last snapshot id before it and the first committed after it. */
  cuts: Array<{ before: number; after: number }>;
  /** Snapshots whose rows are not the full set the first one had. */
  torn: number;
  /** The collector's log lines about the failed commits. */
  collectorLines: string[];
}

export async function commitCutDrill(
  options: CommitCutOptions,
  say: Say,
  teardown: Teardown,
): Promise<CommitCutResult> {
  const sim = await startSimulator(teardown);
  const databaseUrl = await createDrillDatabase(teardown);
  const proxy = await TcpProxyProcess.start(Number(new URL(databaseUrl).port || 5432));
  teardown(() => proxy.close());
  const common = { ...simulatorEnv(sim), NERKH_REFRESH_SECONDS: '2', NERKH_COLLECTOR_LEASE_SECONDS: '30' };
  const apiEnv = {
    ...common,
    NERKH_DATA_DIR: tempDataDir(teardown, 'commit-cut'),
    NERKH_DATABASE_URL: databaseUrl,
  };
  const [key = ''] = await issueKeys(await openDrillStore(teardown, apiEnv), 1);
  // The collector alone goes through the proxy; the API reads PostgreSQL directly.
  const collector = await NerkhProcess.start({
    role: 'collector',
    env: {
      ...common,
      NERKH_DATA_DIR: apiEnv.NERKH_DATA_DIR,
      NERKH_DATABASE_URL: throughPort(databaseUrl, proxy.port),
    },
  });
  teardown(() => collector.stop());
  const api = await NerkhProcess.start({ role: 'api', env: apiEnv });
  teardown(() => api.stop());
  await waitForRates(api.url, key);
  const db = inspector(databaseUrl, teardown);
  const latestId = async () =>
    Number(
      (await db.query<{ id: string }>('SELECT coalesce(max(id), 0) AS id FROM snapshots')).rows[0]?.id ?? 0,
    );

  const cuts: CommitCutResult['cuts'] = [];
  for (let round = 1; round <= options.cuts; round++) {
    const tripped = proxy.cutOn('nerkh-commit-snapshot');
    const armedAt = await latestId();
    await tripped;
    const before = await latestId();
    say(
      `cut ${round}: the connection broke in the middle of a commit (snapshot ${armedAt} was the last before it)`,
    );
    await sleep(options.outage * 1000);
    await proxy.restore();
    await waitForCondition(async () => (await latestId()) > before, 60_000);
    const after = await latestId();
    say(`cut ${round}: network back after ${options.outage} s; next commit succeeded as snapshot ${after}`);
    cuts.push({ before, after });
  }

  // Every snapshot has the same coins as the first (the catalog does not change), each row whole.
  const { rows } = await db.query<{ id: string; rows: number; whole: boolean }>(
    `SELECT id, json_array_length(rates) AS rows,
            bool_and(r ? 'symbol' AND r ? 'sell_usdt') AS whole
       FROM snapshots, json_array_elements(rates) AS r0(r_json), LATERAL (SELECT r_json::jsonb AS r) AS x
      GROUP BY id, rates::text ORDER BY id`,
  );
  const expectedRows = rows[0]?.rows ?? 0;
  const torn = rows.filter((row) => row.rows !== expectedRows || !row.whole).length;
  say(`${rows.length} snapshots stored, each should have ${expectedRows} rows: ${torn} torn`);
  const served = (await (await fetch(`${api.url}/v1/rates`, { headers: { 'X-API-Key': key } })).json()) as {
    rates: unknown[];
  };
  say(`the API serves ${served.rates.length} rows`);
  // What the collector logged at warn and above: each failed commit, and why.
  const collectorLines = collector.events
    .filter((line) => /"level":(40|50)/.test(line))
    .map((line) => {
      const entry = JSON.parse(line) as { msg?: string; err?: { message?: string } };
      return `${entry.msg ?? ''}${entry.err?.message === undefined ? '' : `: ${entry.err.message}`}`;
    });
  for (const line of collectorLines.slice(0, 6)) say(`collector logged: ${line}`);
  const ok =
    torn === 0 &&
    served.rates.length === expectedRows &&
    cuts.length === options.cuts &&
    cuts.every((cut) => cut.after > cut.before) &&
    collector.alive;
  return { ok, cuts, torn, collectorLines };
}

if (isMain(import.meta.url)) {
  await runDrillCommand<CommitCutOptions>({
    name: 'commit-cut',
    description:
      "Runs nerkh's collector on PostgreSQL through a TCP proxy and cuts the connection in the middle of\na snapshot commit (half the statement sent). Passes when no stored snapshot is torn and the next\ncommit after the network returns succeeds, every time.",
    options: {
      outage: { default: 5, help: 'seconds the connection stays cut' },
      cuts: { default: 3, help: 'how many commits to cut' },
    },
    run: commitCutDrill,
  });
}
