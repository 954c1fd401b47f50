/**
 * `/v1/rates` side by side with a static file: nerkh (authenticated, rate-limited, access log on)
 * against nginx sending the same bytes from disk, driven by the same wrk with the same request
 * headers, alternately, several rounds each. In the full-list scenario two Node.js servers sending
 * the same bytes run too: bare node:http, the ceiling of any service built on Node's HTTP server,
 * and raw TCP with no HTTP parsing, the ceiling of Node itself.
 * nerkh runs as deployed: `npm run build`, then `node bin/nerkh.js serve --role api` on a data
 * directory holding a committed snapshot and issued keys. Targets (README "Performance"):
 *   - full list, 50 connections: nerkh ÷ nginx req/s ≥ 0.8 (median of the pairwise ratios);
 *   - p99 ≤ 10 ms at saturating load (50 connections, closed loop, one core);
 *   - peak RSS ≤ 150 MB with 100,000 keys issued, after every key was used through the server;
 *   - ≤ 1 s from process start to the first 200 with a stored snapshot.
 * Layout on a machine with ≥ 2 CPUs: both servers pinned to CPU 0, wrk to CPU 1, so the servers
 * get one core each and never compete with the load generator.
 *
 * Run: npm run bench [-- --rounds 3 --seconds 8 --connections 50 --profile --keep]
 *   --profile  runs nerkh under `node --cpu-prof` and prints the top self-time functions
 *              (figures measured under the profiler are lower; compare profiles, not req/s).
 */

import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { buildIsCurrent } from '../bin/build-is-current.js';
import { type Config, loadConfig } from '../src/config.ts';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.ts';
import { commitBenchSnapshot, issueBenchKeys } from './http/fixture.ts';
import { type NerkhProcess, startNerkh } from './http/nerkh.ts';
import { nginxBinary, type StaticServer, startNginx } from './http/nginx.ts';
import { startNodeReference } from './http/node-floor.ts';
import { mainThreadProfileIn, selfTimes } from './http/profile.ts';
import { type LoadResult, runWrk } from './http/wrk.ts';

const { values: flags } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '8' },
    connections: { type: 'string', default: '50' },
    profile: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
});
const rounds = Number(flags.rounds);
const seconds = Number(flags.seconds);
const connections = Number(flags.connections);
if (!(rounds >= 1 && seconds >= 1 && connections >= 1))
  throw new Error('--rounds, --seconds, --connections ≥ 1');

const projectRoot = join(import.meta.dirname, '..');
const coins = 200;
const benchKeys = 10_000;
const rssKeys = 100_000;
/** High enough that no key reaches it during the bench; the limiter still runs on every request. */
const benchKeyLimit = 1_000_000;
const publicUrl = 'https://rates.example.ir';
const targets = { ratio: 0.8, p99Ms: 10, rssMB: 150, firstOkMs: 1000 };
const startupRuns = 7;

function toolVersion(command: string, args: string[]): string {
  const run = spawnSync(command, args, { encoding: 'utf8' });
  return `${run.stdout}${run.stderr}`.trim().split('\n')[0] ?? '?';
}

for (const tool of ['wrk', 'taskset']) {
  if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) {
    throw new Error(`${tool} is not installed: apt-get install -y ${tool === 'wrk' ? 'wrk' : 'util-linux'}`);
  }
}
if (nginxBinary() === null) throw new Error('nginx is not installed: apt-get install -y nginx');

const pinned = availableParallelism() >= 2;
const serverCpu = pinned ? 0 : undefined;
const loadCpu = pinned ? 1 : undefined;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

interface Fetched {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function get(url: string, headers: Record<string, string>): Promise<Fetched> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    });
    req.once('error', reject);
    req.end();
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

const verdict = (pass: boolean) => (pass ? 'PASS' : 'MISS');
const integer = (value: number) => Math.round(value).toLocaleString('en-US');

const work = mkdtempSync(join(tmpdir(), 'nerkh-bench-http-'));
const dataDir = join(work, 'data');
const root = join(work, 'www');
const keysFile = join(work, 'keys.txt');
const profileDir = join(work, 'profile');
let nerkh: NerkhProcess | null = null;
let nginx: StaticServer | null = null;
let floor: StaticServer | null = null;
let raw: StaticServer | null = null;

interface Scenario {
  name: string;
  nerkhPath: string;
  nginxPath: string;
  headers: Record<string, string>;
  /** If-None-Match with each server's own ETag (set once both run). */
  conditional?: boolean;
  expectStatus: number;
}

const scenarios: Scenario[] = [
  { name: 'full list', nerkhPath: '/v1/rates', nginxPath: '/v1/rates', headers: {}, expectStatus: 200 },
  {
    name: 'full list, gzip',
    nerkhPath: '/v1/rates',
    nginxPath: '/v1/rates',
    headers: { 'Accept-Encoding': 'gzip' },
    expectStatus: 200,
  },
  {
    name: '?symbol=BTC',
    nerkhPath: '/v1/rates?symbol=BTC',
    nginxPath: '/v1/symbol/BTC',
    headers: {},
    expectStatus: 200,
  },
  {
    name: '304 (If-None-Match)',
    nerkhPath: '/v1/rates',
    nginxPath: '/v1/rates',
    headers: {},
    conditional: true,
    expectStatus: 304,
  },
];

/** nginx and nerkh in every scenario; the node:http floor and raw TCP in the full-list one. */
type ServerName = 'nginx' | 'nerkh' | 'floor' | 'raw';

async function measure(
  server: ServerName,
  scenario: Scenario,
  etags: Record<ServerName, string>,
  durationSeconds: number,
  keyOffset = 0,
): Promise<LoadResult> {
  const base = { nerkh: nerkh?.url, nginx: nginx?.url, floor: floor?.url, raw: raw?.url }[server] as string;
  const path = server === 'nerkh' ? scenario.nerkhPath : scenario.nginxPath;
  const headers = scenario.conditional
    ? { ...scenario.headers, 'If-None-Match': etags[server] }
    : scenario.headers;
  const result = await runWrk({
    url: `${base}${path}`,
    connections,
    durationSeconds,
    headers,
    keysFile,
    keyOffset,
    ...(loadCpu === undefined ? {} : { cpu: loadCpu }),
    workDir: work,
  });
  if (result.requests === 0 || result.failed > 0 || result.socketErrors > 0) {
    throw new Error(
      `invalid run (${server}, ${scenario.name}): ${result.failed} responses ≥ 400 and ${result.socketErrors} socket errors of ${result.requests}; a 429 means a key hit its limit`,
    );
  }
  return result;
}

function printProfile(): void {
  console.log('');
  console.log('Top self time in nerkh, % of busy time (node --cpu-prof; start, warm-up and every scenario):');
  for (const entry of selfTimes(mainThreadProfileIn(profileDir), projectRoot).slice(0, 20)) {
    console.log(`  ${entry.percent.toFixed(1).padStart(5)} %  ${entry.frame}`);
  }
}

/**
 * Peak memory with 100,000 keys issued, after each was used through the server at least once (so
 * the key cache and the limiter hold as much as they ever will), and the time from process start
 * to the first 200 with a stored snapshot, as `nerkh serve` starts.
 */
async function measureFootprint(
  config: Config,
  readyKey: string,
  etags: Record<ServerName, string>,
): Promise<{ peakRssMB: number; startups: number[] }> {
  const rssStore = openSqliteStore(config);
  await issueBenchKeys(rssStore, rssKeys - benchKeys, benchKeyLimit, keysFile);
  await rssStore.close();
  const rssLog = join(work, 'nerkh-rss.log');
  nerkh = await startNerkh({
    dataDir,
    port: await freePort(),
    publicUrl,
    logFile: rssLog,
    readyKey,
    ...(serverCpu === undefined ? {} : { cpu: serverCpu }),
  });
  let keysUsed = 0;
  let keyOffset = 0;
  for (let pass = 0; pass < 6 && keysUsed < rssKeys; pass++) {
    // Each pass continues the rotation where the last one stopped.
    keyOffset += (await measure('nerkh', scenarios[0] as Scenario, etags, seconds, keyOffset)).requests;
    // The access log names the key id of every authenticated request: count the distinct ones.
    keysUsed = new Set(readFileSync(rssLog, 'utf8').match(/"key_id":"key_[0-9a-f]{12}"/g)).size;
  }
  const peakRssMB = (nerkh.peakRssKiB() * 1024) / 1e6;
  const rssRun = nerkh;
  nerkh = null;
  await rssRun.stop();
  if (keysUsed < rssKeys) throw new Error(`only ${keysUsed} of ${rssKeys} keys reached the server`);

  const startups: number[] = [];
  for (let run = 0; run < startupRuns; run++) {
    const started = await startNerkh({
      dataDir,
      port: await freePort(),
      publicUrl,
      logFile: join(work, 'nerkh-start.log'),
      readyKey,
    });
    startups.push(started.firstOkMs);
    await started.stop();
  }
  return { peakRssMB, startups };
}

try {
  const [load1] = loadavg();
  console.log(
    `nerkh HTTP bench — ${cpus()[0]?.model ?? 'cpu'} ×${availableParallelism()}, node ${process.version}, ` +
      `${toolVersion(nginxBinary() as string, ['-v'])}, ${toolVersion('wrk', ['-v'])}`,
  );
  console.log(
    `servers on CPU ${serverCpu ?? 'any'}, wrk on CPU ${loadCpu ?? 'any'}; ${rounds} rounds × ${scenarios.length} scenarios × nginx and nerkh (and node:http and raw TCP on the full list) × ${seconds} s, ${connections} connections; load average ${load1?.toFixed(2)}`,
  );
  if ((load1 ?? 0) > 0.5) console.log('warning: the machine is busy; figures will be disturbed');
  if (flags.profile) console.log('profiling: nerkh runs under --cpu-prof, its req/s are lower than without');

  // 0. The production build, as a deployment makes it (README "Performance"); bin/nerkh.js runs it.
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: projectRoot, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`npm run build failed:\n${build.stdout}${build.stderr}`);
  if (!buildIsCurrent(projectRoot)) {
    throw new Error('dist/nerkh.js is not current after npm run build; nerkh would run from the sources');
  }

  // 1. The data an operator's nerkh would have: one snapshot of 200 coins and 10,000 issued keys.
  const config = loadConfig({ NERKH_DATA_DIR: dataDir, NERKH_PUBLIC_URL: publicUrl, LOG_LEVEL: 'silent' });
  const store = openSqliteStore(config);
  const rows = await commitBenchSnapshot(store, config, coins);
  const [readyKey] = await issueBenchKeys(store, benchKeys, benchKeyLimit, keysFile);
  await store.close();

  // 2. nerkh as a user runs it, and nginx serving the exact bytes nerkh sends.
  nerkh = await startNerkh({
    dataDir,
    port: await freePort(),
    publicUrl,
    logFile: join(work, 'nerkh.log'),
    readyKey: readyKey as string,
    ...(serverCpu === undefined ? {} : { cpu: serverCpu }),
    ...(flags.profile ? { cpuProfDir: profileDir } : {}),
  });
  const auth = { 'X-API-Key': readyKey as string };
  const plain = await get(`${nerkh.url}/v1/rates`, auth);
  const gzip = await get(`${nerkh.url}/v1/rates`, { ...auth, 'Accept-Encoding': 'gzip' });
  const btc = await get(`${nerkh.url}/v1/rates?symbol=BTC`, auth);
  if (plain.status !== 200 || gzip.headers['content-encoding'] !== 'gzip' || btc.status !== 200) {
    throw new Error('nerkh did not serve the bench snapshot as expected');
  }
  if (!gunzipSync(gzip.body).equals(plain.body)) throw new Error('gzip body differs from the plain body');
  mkdirSync(join(root, 'v1', 'symbol'), { recursive: true });
  // nginx's worker runs as an unprivileged user: it may pass through the private work directory
  // (mkdtemp makes it 0700) to the document root, but not list it.
  chmodSync(work, 0o711);
  writeFileSync(join(root, 'v1', 'rates'), plain.body);
  // nerkh's own gzip bytes (level 9) as the pre-compressed file, so both send the same bytes.
  writeFileSync(join(root, 'v1', 'rates.gz'), gzip.body);
  writeFileSync(join(root, 'v1', 'symbol', 'BTC'), btc.body);
  mkdirSync(join(work, 'nginx'), { recursive: true });
  nginx = await startNginx({
    root,
    workDir: join(work, 'nginx'),
    port: await freePort(),
    ...(serverCpu === undefined ? {} : { cpu: serverCpu }),
  });
  const reference = {
    bodyFile: join(root, 'v1', 'rates'),
    ...(serverCpu === undefined ? {} : { cpu: serverCpu }),
  };
  floor = await startNodeReference('node:http', { port: await freePort(), ...reference });
  raw = await startNodeReference('raw TCP', { port: await freePort(), ...reference });
  for (const server of [floor, raw]) {
    if (!(await get(`${server.url}/v1/rates`, {})).body.equals(plain.body)) {
      throw new Error('a reference server sent other bytes than nerkh');
    }
  }
  const etags: Record<ServerName, string> = {
    nerkh: String(plain.headers.etag),
    nginx: String((await get(`${nginx.url}/v1/rates`, auth)).headers.etag),
    floor: '"floor"',
    raw: '"raw"',
  };
  console.log(
    `snapshot: ${rows} coins, ${integer(plain.body.length)} bytes JSON, ${integer(gzip.body.length)} gzip, BTC ${btc.body.length} bytes; ${integer(benchKeys)} keys rotated per request`,
  );

  // Both servers must answer every scenario with the expected status and the same body.
  for (const scenario of scenarios) {
    const answers: Fetched[] = [];
    for (const server of ['nginx', 'nerkh'] as const) {
      const base = server === 'nginx' ? nginx.url : nerkh.url;
      const path = server === 'nginx' ? scenario.nginxPath : scenario.nerkhPath;
      const headers = scenario.conditional
        ? { ...scenario.headers, 'If-None-Match': etags[server] }
        : scenario.headers;
      const answer = await get(`${base}${path}`, { ...auth, ...headers });
      if (answer.status !== scenario.expectStatus) {
        throw new Error(
          `${server} answered ${answer.status} to "${scenario.name}", expected ${scenario.expectStatus}`,
        );
      }
      answers.push(answer);
    }
    if (!(answers[0] as Fetched).body.equals((answers[1] as Fetched).body)) {
      throw new Error(`nginx and nerkh sent different bodies for "${scenario.name}"`);
    }
  }

  // 3. Warm up both (JIT, connection setup), then alternate the servers within each scenario.
  await measure('nerkh', scenarios[0] as Scenario, etags, 3);
  await measure('nginx', scenarios[0] as Scenario, etags, 1);
  const results = new Map<string, Record<ServerName, LoadResult[]>>();
  for (const scenario of scenarios) results.set(scenario.name, { nginx: [], nerkh: [], floor: [], raw: [] });
  for (let round = 0; round < rounds; round++) {
    for (const scenario of scenarios) {
      const order: ServerName[] =
        scenario === scenarios[0] ? ['nginx', 'nerkh', 'floor', 'raw'] : ['nginx', 'nerkh'];
      if (round % 2 === 1) order.reverse();
      for (const server of order) {
        const result = await measure(server, scenario, etags, seconds);
        results.get(scenario.name)?.[server].push(result);
        console.log(
          `  round ${round + 1} ${scenario.name.padEnd(20)} ${server.padEnd(5)} ${integer(result.requestsPerSecond).padStart(7)} req/s  p50 ${result.p50Ms.toFixed(2)} ms  p99 ${result.p99Ms.toFixed(2)} ms  ${integer(result.bytesPerResponse)} B/resp`,
        );
      }
    }
  }
  const nerkhRun = nerkh;
  nerkh = null;
  await nerkhRun.stop();
  await nginx.stop();
  nginx = null;
  await floor.stop();
  floor = null;
  await raw.stop();
  raw = null;

  // 4 and 5 measure the process itself; under the profiler they would measure the profiler.
  const footprint = flags.profile ? null : await measureFootprint(config, readyKey as string, etags);

  // 6. Summary.
  const row = (cells: string[], widths: number[]) =>
    cells
      .map((cell, index) =>
        index === 0 ? cell.padEnd(widths[0] as number) : cell.padStart(widths[index] as number),
      )
      .join('  ');
  const widths = [20, 11, 8, 8, 11, 8, 8, 7];
  console.log('');
  console.log(
    `Results (median of ${rounds} rounds, ${connections} connections, ${seconds} s each; ratio = median of pairwise nerkh ÷ nginx req/s)`,
  );
  console.log(
    row(['scenario', 'nginx req/s', 'p50 ms', 'p99 ms', 'nerkh req/s', 'p50 ms', 'p99 ms', 'ratio'], widths),
  );
  const medians = new Map<string, { ratio: number; nerkhP99: number }>();
  for (const scenario of scenarios) {
    const runs = results.get(scenario.name) as Record<ServerName, LoadResult[]>;
    const ratios = runs.nerkh.map(
      (result, index) => result.requestsPerSecond / (runs.nginx[index] as LoadResult).requestsPerSecond,
    );
    const stat = (server: ServerName, pick: (result: LoadResult) => number) => median(runs[server].map(pick));
    const ratio = median(ratios);
    medians.set(scenario.name, { ratio, nerkhP99: stat('nerkh', (r) => r.p99Ms) });
    console.log(
      row(
        [
          scenario.name,
          integer(stat('nginx', (r) => r.requestsPerSecond)),
          stat('nginx', (r) => r.p50Ms).toFixed(2),
          stat('nginx', (r) => r.p99Ms).toFixed(2),
          integer(stat('nerkh', (r) => r.requestsPerSecond)),
          stat('nerkh', (r) => r.p50Ms).toFixed(2),
          stat('nerkh', (r) => r.p99Ms).toFixed(2),
          ratio.toFixed(2),
        ],
        widths,
      ),
    );
  }
  const fullRuns = results.get('full list') as Record<ServerName, LoadResult[]>;
  const pairwise = (a: ServerName, b: ServerName) =>
    median(
      fullRuns[a].map(
        (result, index) => result.requestsPerSecond / (fullRuns[b][index] as LoadResult).requestsPerSecond,
      ),
    );
  for (const [server, label] of [
    ['floor', 'node:http floor'],
    ['raw', 'raw TCP (Node)'],
  ] as const) {
    console.log(
      row(
        [
          label,
          '',
          '',
          '',
          integer(median(fullRuns[server].map((r) => r.requestsPerSecond))),
          median(fullRuns[server].map((r) => r.p50Ms)).toFixed(2),
          median(fullRuns[server].map((r) => r.p99Ms)).toFixed(2),
          pairwise(server, 'nginx').toFixed(2),
        ],
        widths,
      ),
    );
  }
  console.log(
    `  (the full list from bare node:http, and from raw TCP parsing no HTTP, neither checking a key, limiting or logging: what Node's HTTP server, and Node itself, can send here; nerkh ÷ node:http ${pairwise('nerkh', 'floor').toFixed(2)})`,
  );
  const full = medians.get('full list') as { ratio: number; nerkhP99: number };
  console.log('');
  console.log('Targets');
  console.log(
    `  full list ratio nerkh ÷ nginx       ${full.ratio.toFixed(2)}  (≥ ${targets.ratio})  ${verdict(full.ratio >= targets.ratio)}`,
  );
  console.log(
    `  p99 at saturation (full list)       ${full.nerkhP99.toFixed(2)} ms  (≤ ${targets.p99Ms} ms)  ${verdict(full.nerkhP99 <= targets.p99Ms)}`,
  );
  if (footprint) {
    const { peakRssMB, startups } = footprint;
    const firstOk = median(startups);
    console.log(
      `  peak RSS, ${integer(rssKeys)} keys, all used    ${peakRssMB.toFixed(1)} MB  (≤ ${targets.rssMB} MB)  ${verdict(peakRssMB <= targets.rssMB)}`,
    );
    console.log(
      `  start to first 200 (median of ${startupRuns})     ${integer(firstOk)} ms  (≤ ${targets.firstOkMs} ms)  ${verdict(firstOk <= targets.firstOkMs)}  [${startups.map(integer).join(', ')} ms]`,
    );
  }
} finally {
  await nerkh?.stop().catch(() => undefined);
  await nginx?.stop();
  await floor?.stop();
  await raw?.stop();
  // Also after a failed run: the profile is what shows why it failed.
  if (flags.profile && existsSync(profileDir)) printProfile();
  if (flags.keep) console.log(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
