/**
 * `/v1/rates` side by side with a static file: nerkh (authenticated, rate-limited, access log on)
 * against nginx sending the same bytes from disk, driven by the same wrk with the same request
 * headers, alternately, several rounds each. In the full-list scenario more servers sending the
 * same bytes run too: bare node:http, the ceiling of any service built on Node's HTTP server, and
 * raw TCP with no HTTP parsing, the ceiling of Node itself; nerkh with its limits shared through
 * Redis; and the services an operator would otherwise deploy, with the same key check and an
 * access log: Fastify + @fastify/rate-limit (its Redis store, and in memory) and Express +
 * express-rate-limit (in memory). Then two instances of each limiter take one burst on one key
 * (how many does each admit?), and nerkh with Redis runs under load while Redis is cut off.
 * nerkh runs as deployed: `npm run build`, then `node bin/nerkh.js serve --role api` on a data
 * directory holding a committed snapshot and issued keys. Targets (docs/performance.md):
 *   - full list, 50 connections: nerkh ÷ nginx req/s ≥ 0.8 (median of the pairwise ratios);
 *   - p99 ≤ 5 ms at saturating load (50 connections, closed loop, one core);
 *   - a 304's status line and header fields ≤ 400 bytes;
 *   - peak RSS ≤ 150 MB with 100,000 keys issued, after every key was used through the server;
 *   - ≤ 1 s from process start to the first 200 with a stored snapshot;
 *   - full list: nerkh with Redis ≥ 0.7 × nerkh in memory and ≥ 1.2 × Fastify + @fastify/rate-limit
 *     with Redis; nerkh ≥ 1.5 × each peer in memory; nerkh ≥ 0.8 × and nerkh with Redis ≥ 0.7 ×
 *     bare node:http;
 *   - two instances sharing a limit never admit more than it, across any window boundary;
 *   - Redis cut under load: only 200s and 429s, no socket error.
 * Layout on a machine with ≥ 2 CPUs: the servers pinned to CPU 0, wrk to CPU 1, so the servers
 * get one core each and never compete with the load generator. Redis is the bench's own
 * redis-server on the load generator's CPU, as on a machine of its own in a deployment, and its CPU
 * time per request is reported beside each row that uses it; with --redis-url, that Redis, unpinned.
 *
 * Run: npm run bench [-- OPTIONS]; `npm run bench -- --help` lists the options.
 */

import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import type { Redis } from 'ioredis';
import { buildIsCurrent } from '../bin/build-is-current.js';
import { CommandLine, stopScript } from '../scripts/command-line.ts';
import { type Config, loadConfig } from '../src/config.ts';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.ts';
import { deleteBenchKeys, openBenchRedis } from './http/bench-redis.ts';
import { commandPath } from './http/command-path.ts';
import { type BenchKey, commitBenchSnapshot, issueBenchKeys } from './http/fixture.ts';
import { freePort } from './http/free-port.ts';
import { type Fetched, get } from './http/http-get.ts';
import { type NerkhProcess, startNerkh } from './http/nerkh.ts';
import { limiterEvents, logLines } from './http/nerkh-log.ts';
import { nginxBinary, type StaticServer, startNginx } from './http/nginx.ts';
import { startNodeReference } from './http/node-floor.ts';
import { measureOverAdmission } from './http/over-admission.ts';
import { benchParts, estimatedSeconds, isLoadPart, parseParts, reloadSeconds } from './http/parts.ts';
import { startPeer } from './http/peers.ts';
import { busyShare, cpuTimes, processTreeCpuMicros } from './http/process-cpu.ts';
import { mainThreadProfileIn, selfTimes } from './http/profile.ts';
import { measureRedisOutage } from './http/redis-outage.ts';
import { type BenchRedisServer, startBenchRedisServer } from './http/redis-server.ts';
import { type LoadResult, runWrk } from './http/wrk.ts';

const commandLine = new CommandLine(
  'bench',
  `Usage: npm run bench [-- OPTIONS]
  --rounds N       rounds of every load run (3)
  --seconds N      seconds of each load run (8)
  --connections N  wrk's connections (50)
  --warm-up N      seconds each nerkh server is loaded before the first round (80: past the first
                   minute of its process, whose one-time events would otherwise be measured)
  --only PARTS     only these parts, comma-separated: ${benchParts.join(', ')} (all; see bench/http/parts.ts)
  --redis-url URL  a Redis for the Redis rows, the burst and the outage, instead of the bench's own
                   redis-server; the bench deletes the keys it wrote there, and only those. Use a
                   database apart from other programs' keys (e.g. redis://127.0.0.1:6379/15): an
                   invalid-key throttle another nerkh wrote for 127.0.0.1 would turn the bench's
                   requests into 429s
  --profile        run nerkh (in memory, and with Redis when that part runs) under node --cpu-prof
                   and print the top self-time functions of each (req/s measured under the profiler
                   are lower: compare profiles, not req/s)
  --keep           keep the work directory (data, keys, logs, wrk scripts) and print its path
  --help           this text`,
);
const flags = commandLine.parse(
  () =>
    parseArgs({
      options: {
        rounds: { type: 'string', default: '3' },
        seconds: { type: 'string', default: '8' },
        connections: { type: 'string', default: '50' },
        'warm-up': { type: 'string', default: '80' },
        only: { type: 'string' },
        'redis-url': { type: 'string' },
        profile: { type: 'boolean', default: false },
        keep: { type: 'boolean', default: false },
        help: { type: 'boolean' },
      },
    }).values,
);
/** A whole number ≥ 1 from an option's value, or the command line is refused. */
function countOption(name: string, value: string): number {
  const count = Number(value);
  if (!Number.isInteger(count) || count < 1)
    commandLine.refuse(`--${name} must be a whole number ≥ 1, not "${value}"`);
  return count;
}
const rounds = countOption('rounds', flags.rounds);
const seconds = countOption('seconds', flags.seconds);
const connections = countOption('connections', flags.connections);
/**
 * Seconds of load on each nerkh server before its first measured round. A process's first minute
 * holds events that each run some code for the first time: the first turn of the key cache's
 * periods (10 s), the first write of keys' last use (30 s), the first admissions to leave the
 * limit window and the limiter's first sweep (60 s). V8 deoptimizes the code they touch and
 * compiles it again, on the server's own core, and the p99 of that minute is several times the
 * p99 after it (docs/decisions/0035-bench-measures-servers-under-way.md). The rounds measure a
 * process at saturation, not one starting; 80 s is past the minute with room to spare.
 */
const warmUpSeconds = countOption('warm-up', flags['warm-up']);
const parts = commandLine.read(() => parseParts(flags.only));
/** The Redis the Redis parts use: --redis-url, or the bench's own server once it runs. */
let redisUrl = flags['redis-url'] ?? '';
const usesRedis = parts.has('redis') || parts.has('peers') || parts.has('burst') || parts.has('outage');

const projectRoot = join(import.meta.dirname, '..');
const coins = 200;
const benchKeys = 10_000;
const rssKeys = 100_000;
/** High enough that no key reaches it during the bench; the limiter still runs on every request. */
const benchKeyLimit = 1_000_000;
const publicUrl = 'https://rates.example.ir';
const targets = {
  ratio: 0.8,
  p99Ms: 5,
  notModifiedBytes: 400,
  rssMB: 150,
  firstOkMs: 1000,
  redisOverMemory: 0.7,
  redisOverPeer: 1.2,
  overPeers: 1.5,
  overNodeHttp: 0.8,
  redisOverNodeHttp: 0.7,
};
const startupRuns = 7;
/** The burst: the spec's limit and window (nerkh's defaults), one key, two instances each. */
const burstLimit = 60;
const burstWindowSeconds = 60;
const burstRequests = 300;
/** The Redis cut: three phases, and one request in about this many with a key limited to `burstLimit`. */
const outagePhaseSeconds = 5;
const outageLimitedEvery = 100;

function toolVersion(command: string, args: string[]): string {
  const run = spawnSync(command, args, { encoding: 'utf8' });
  return `${run.stdout}${run.stderr}`.trim().split('\n')[0] ?? '?';
}

for (const tool of ['wrk', 'taskset']) {
  if (commandPath(tool) === null) {
    stopScript(
      'bench',
      `${tool} is not installed: apt-get install -y ${tool === 'wrk' ? 'wrk' : 'util-linux'}`,
    );
  }
}
if (parts.has('base') && nginxBinary() === null)
  stopScript('bench', 'nginx is not installed: apt-get install -y nginx');

const pinned = availableParallelism() >= 2;
const serverCpu = pinned ? 0 : undefined;
const loadCpu = pinned ? 1 : undefined;
const onServerCpu = serverCpu === undefined ? {} : { cpu: serverCpu };

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
const bodyFile = join(root, 'v1', 'rates');
const keysFile = join(work, 'keys.txt');
/** Where each profiled nerkh writes its `.cpuprofile`: in memory, and with its limits in Redis. */
const profileDirs = { nerkh: join(work, 'profile'), nerkhRedis: join(work, 'profile-redis') } as const;
/** Start of every Redis key the peers write: unique to this run, so the bench deletes only its own. */
const peerPrefix = `nerkh-bench:${randomBytes(6).toString('hex')}:`;
/** Ids of every key the bench issued that a Redis-backed nerkh may have counted. */
const redisKeyIds: string[] = [];
let benchRedis: Redis | null = null;
/** The bench's own Redis (without --redis-url), pinned with the load generator. */
let ownRedis: BenchRedisServer | null = null;

/**
 * Every server the bench measures: nginx and nerkh in every scenario; the rest in the full-list
 * one. `nerkhRedis` is nerkh with NERKH_REDIS_URL; the last three are the peers.
 */
const serverNames = [
  'nginx',
  'nerkh',
  'floor',
  'raw',
  'nerkhRedis',
  'fastifyRedis',
  'fastify',
  'express',
] as const;
type ServerName = (typeof serverNames)[number];
const serverLabels: Record<ServerName, string> = {
  nginx: 'nginx',
  nerkh: 'nerkh',
  floor: 'node:http floor',
  raw: 'raw TCP (Node)',
  nerkhRedis: 'nerkh, limits in Redis',
  fastifyRedis: 'Fastify + @fastify/rate-limit, Redis store',
  fastify: 'Fastify + @fastify/rate-limit, in memory',
  express: 'Express + express-rate-limit, in memory',
};
const servers: Partial<Record<ServerName, StaticServer | NerkhProcess>> = {};
const isNerkh = (server: ServerName) => server === 'nerkh' || server === 'nerkhRedis';
/** The rows whose servers use Redis under load. */
const redisRows = ['nerkhRedis', 'fastifyRedis'] as const;
type RedisRow = (typeof redisRows)[number];
const usesRedisUnderLoad = (server: ServerName): server is RedisRow =>
  (redisRows as readonly ServerName[]).includes(server);
/** The bench's own Redis's CPU time per request in each round of the rows that use it. */
const redisCpuPerRequest: Record<RedisRow, number[]> = { nerkhRedis: [], fastifyRedis: [] };

/** Over this share of its time busy, wrk's core set the pace of a round, not the server. */
const loadBoundBusy = 0.95;

/**
 * What each full-list round of a server cost in CPU: the server's own time per request, and the
 * share of its time the load generator's core was busy. A server's req/s are capped by the load
 * generator as well as by the server: where wrk's core is busy throughout, a faster server could
 * not show it, and its CPU time per request is the measure of its cost that wrk does not cap.
 */
interface RoundCpu {
  serverMicrosPerRequest: number;
  loadCoreBusy: number;
}
const fullListCpu = Object.fromEntries(
  serverNames.map((server): [ServerName, RoundCpu[]] => [server, []]),
) as Record<ServerName, RoundCpu[]>;

async function stopServer(server: ServerName): Promise<void> {
  const running = servers[server];
  delete servers[server];
  await running?.stop();
}

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
const fullList = scenarios[0] as Scenario;
const notModifiedScenario = scenarios.find((scenario) => scenario.conditional) as Scenario;
/** The scenarios this run measures: the base part's four, or only the full list. */
const measuredScenarios = parts.has('base') ? scenarios : [fullList];

async function measure(
  server: ServerName,
  scenario: Scenario,
  etags: Partial<Record<ServerName, string>>,
  durationSeconds: number,
  keyOffset = 0,
): Promise<LoadResult> {
  const base = servers[server]?.url;
  if (base === undefined) throw new Error(`${server} is not running`);
  const path = isNerkh(server) ? scenario.nerkhPath : scenario.nginxPath;
  const headers = scenario.conditional
    ? { ...scenario.headers, 'If-None-Match': etags[server] as string }
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

function printProfile(server: keyof typeof profileDirs, title: string): void {
  if (!existsSync(profileDirs[server])) return;
  console.log('');
  console.log(
    `Top self time in ${title}, % of busy time (node --cpu-prof; start, warm-up and every scenario):`,
  );
  for (const entry of selfTimes(mainThreadProfileIn(profileDirs[server]), projectRoot).slice(0, 20)) {
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
  etags: Partial<Record<ServerName, string>>,
): Promise<{ peakRssMB: number; startups: number[] }> {
  const rssStore = openSqliteStore(config);
  await issueBenchKeys(rssStore, rssKeys - benchKeys, benchKeyLimit, keysFile);
  await rssStore.close();
  const rssLog = join(work, 'nerkh-rss.log');
  const rssRun = await startNerkh({
    dataDir,
    port: await freePort(),
    publicUrl,
    logFile: rssLog,
    readyKey,
    ...onServerCpu,
  });
  servers.nerkh = rssRun;
  let keysUsed = 0;
  let keyOffset = 0;
  // Passes of --seconds each, for up to a minute of load (more with long passes): a slow or busy
  // machine needs more of them to reach every key.
  const passes = Math.max(6, Math.ceil(60 / seconds));
  for (let pass = 0; pass < passes && keysUsed < rssKeys; pass++) {
    // Each pass continues the rotation where the last one stopped.
    keyOffset += (await measure('nerkh', fullList, etags, seconds, keyOffset)).requests;
    // The access log names the key id of every authenticated request: count the distinct ones.
    keysUsed = new Set(readFileSync(rssLog, 'utf8').match(/"key_id":"key_[0-9a-f]{12}"/g)).size;
  }
  const peakRssMB = (rssRun.peakRssKiB() * 1024) / 1e6;
  await stopServer('nerkh');
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
  const loadServers = [
    ...(parts.has('base') ? ['nginx', 'nerkh (and node:http and raw TCP on the full list)'] : ['nerkh']),
    ...(parts.has('redis') ? ['nerkh with Redis'] : []),
    ...(parts.has('peers') ? ['3 peers'] : []),
  ];
  console.log(
    `nerkh HTTP bench — ${cpus()[0]?.model ?? 'cpu'} ×${availableParallelism()}, node ${process.version}, ` +
      `${parts.has('base') ? `${toolVersion(nginxBinary() as string, ['-v'])}, ` : ''}${toolVersion('wrk', ['-v'])}`,
  );
  console.log(
    `parts: ${[...parts].join(', ')}; about ${Math.ceil(estimatedSeconds(parts, { rounds, seconds, warmUpSeconds, burstWindowSeconds, outagePhaseSeconds }) / 60)} min`,
  );
  if ([...parts].some(isLoadPart)) {
    console.log(
      `servers on CPU ${serverCpu ?? 'any'}, wrk on CPU ${loadCpu ?? 'any'}; ${rounds} rounds × ${measuredScenarios.length} scenarios × ${loadServers.join(', ')} (all but nerkh and nginx on the full list only) × ${seconds} s (each after ${reloadSeconds} s of the same load), ${connections} connections, after ${warmUpSeconds} s of load on each nerkh; load average ${load1?.toFixed(2)}`,
    );
  }
  if ((load1 ?? 0) > 0.5) console.log('warning: the machine is busy; figures will be disturbed');
  if (flags.profile) console.log('profiling: nerkh runs under --cpu-prof, its req/s are lower than without');
  if (usesRedis) {
    if (redisUrl === '') {
      ownRedis = await startBenchRedisServer({
        port: await freePort(),
        ...(loadCpu === undefined ? {} : { cpu: loadCpu }),
      });
      redisUrl = ownRedis.url;
      console.log(
        `Redis: the bench's own redis-server ${ownRedis.version} on CPU ${loadCpu ?? 'any'} (with wrk, as on a machine of its own), ${redisUrl}`,
      );
    } else {
      console.log(`Redis: ${redisUrl} (given, not pinned; the bench deletes the keys it writes)`);
    }
    benchRedis = await openBenchRedis(redisUrl);
  }

  // 0. The production build, as a deployment makes it (docs/deployment.md#the-production-build); bin/nerkh.js runs it.
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: projectRoot, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`npm run build failed:\n${build.stdout}${build.stderr}`);
  if (!buildIsCurrent(projectRoot)) {
    throw new Error('dist/nerkh.js is not current after npm run build; nerkh would run from the sources');
  }

  // 1. The data an operator's nerkh would have: one snapshot of 200 coins and 10,000 issued keys;
  // for the burst and the Redis cut, keys with the spec's limit of 60.
  const config = loadConfig({ NERKH_DATA_DIR: dataDir, NERKH_PUBLIC_URL: publicUrl, LOG_LEVEL: 'silent' });
  const store = openSqliteStore(config);
  const rows = await commitBenchSnapshot(store, config, coins);
  const loadKeys = await issueBenchKeys(store, benchKeys, benchKeyLimit, keysFile);
  const limitedKeysFile = join(work, 'limited-keys.txt');
  const [oneWindowKey, straddleKey, outageKey] = (await issueBenchKeys(
    store,
    3,
    burstLimit,
    limitedKeysFile,
  )) as [BenchKey, BenchKey, BenchKey];
  await store.close();
  redisKeyIds.push(...loadKeys.map(({ id }) => id), oneWindowKey.id, straddleKey.id, outageKey.id);
  const readyKey = (loadKeys[0] as BenchKey).key;

  // 2. nerkh as a user runs it, and the other servers sending the exact bytes nerkh sends.
  servers.nerkh = await startNerkh({
    dataDir,
    port: await freePort(),
    publicUrl,
    logFile: join(work, 'nerkh.log'),
    readyKey,
    ...onServerCpu,
    ...(flags.profile ? { cpuProfDir: profileDirs.nerkh } : {}),
  });
  const nerkhUrl = servers.nerkh.url;
  const auth = { 'X-API-Key': readyKey };
  const plain = await get(`${nerkhUrl}/v1/rates`, auth);
  if (plain.status !== 200) throw new Error(`nerkh answered ${plain.status} to a valid key`);
  mkdirSync(join(root, 'v1', 'symbol'), { recursive: true });
  // nginx's worker runs as an unprivileged user: it may pass through the private work directory
  // (mkdtemp makes it 0700) to the document root, but not list it.
  chmodSync(work, 0o711);
  writeFileSync(bodyFile, plain.body);
  const etags: Partial<Record<ServerName, string>> = { nerkh: String(plain.headers.etag) };
  let gzipBytes = 0;
  let btcBytes = 0;
  if (parts.has('base')) {
    const gzip = await get(`${nerkhUrl}/v1/rates`, { ...auth, 'Accept-Encoding': 'gzip' });
    const btc = await get(`${nerkhUrl}/v1/rates?symbol=BTC`, auth);
    if (gzip.headers['content-encoding'] !== 'gzip' || btc.status !== 200) {
      throw new Error('nerkh did not serve the bench snapshot as expected');
    }
    if (!gunzipSync(gzip.body).equals(plain.body)) throw new Error('gzip body differs from the plain body');
    // nerkh's own gzip bytes (level 9) as the pre-compressed file, so both send the same bytes.
    writeFileSync(join(root, 'v1', 'rates.gz'), gzip.body);
    writeFileSync(join(root, 'v1', 'symbol', 'BTC'), btc.body);
    gzipBytes = gzip.body.length;
    btcBytes = btc.body.length;
    mkdirSync(join(work, 'nginx'), { recursive: true });
    servers.nginx = await startNginx({
      root,
      workDir: join(work, 'nginx'),
      port: await freePort(),
      ...onServerCpu,
    });
    const reference = { bodyFile, ...onServerCpu };
    servers.floor = await startNodeReference('node:http', { port: await freePort(), ...reference });
    servers.raw = await startNodeReference('raw TCP', { port: await freePort(), ...reference });
    etags.nginx = String((await get(`${servers.nginx.url}/v1/rates`, auth)).headers.etag);
    etags.floor = '"floor"';
    etags.raw = '"raw"';
  }
  if (parts.has('redis')) {
    servers.nerkhRedis = await startNerkh({
      dataDir,
      port: await freePort(),
      publicUrl,
      logFile: join(work, 'nerkh-redis.log'),
      readyKey,
      redisUrl,
      ...onServerCpu,
      ...(flags.profile ? { cpuProfDir: profileDirs.nerkhRedis } : {}),
    });
  }
  if (parts.has('peers')) {
    const peer = (name: string) => ({
      bodyFile,
      keysFile,
      limit: benchKeyLimit,
      windowMs: 60_000,
      logFile: join(work, `peer-${name}.log`),
      ...onServerCpu,
    });
    servers.fastifyRedis = await startPeer('fastify', {
      port: await freePort(),
      ...peer('fastify-redis'),
      redis: { url: redisUrl, prefix: `${peerPrefix}load:` },
    });
    servers.fastify = await startPeer('fastify', { port: await freePort(), ...peer('fastify') });
    servers.express = await startPeer('express', { port: await freePort(), ...peer('express') });
  }
  // Every other server sends nerkh's bytes on the full list, and refuses what nerkh refuses.
  for (const server of ['floor', 'raw', 'nerkhRedis', 'fastifyRedis', 'fastify', 'express'] as const) {
    const url = servers[server]?.url;
    if (url === undefined) continue;
    if (!(await get(`${url}/v1/rates`, auth)).body.equals(plain.body)) {
      throw new Error(`${serverLabels[server]} sent other bytes than nerkh`);
    }
    // The peers' key check; nerkh's is its own tests' (an invalid key would write nerkh's
    // invalid-key throttle into the shared Redis).
    if (server === 'fastifyRedis' || server === 'fastify' || server === 'express') {
      const missing = await get(`${url}/v1/rates`, {});
      // The key with its last character changed (to another, whatever it was).
      const unknownKey = `${readyKey.slice(0, -1)}${readyKey.endsWith('x') ? 'y' : 'x'}`;
      const invalid = await get(`${url}/v1/rates`, { 'X-API-Key': unknownKey });
      if (missing.status !== 401 || invalid.status !== 403) {
        throw new Error(
          `${serverLabels[server]} answered ${missing.status} without a key and ${invalid.status} to an invalid one`,
        );
      }
    }
  }
  console.log(
    `snapshot: ${rows} coins, ${integer(plain.body.length)} bytes JSON${parts.has('base') ? `, ${integer(gzipBytes)} gzip, BTC ${btcBytes} bytes` : ''}; ${integer(benchKeys)} keys rotated per request`,
  );

  // nginx and nerkh must answer every scenario with the expected status and the same body.
  const nginxUrl = servers.nginx?.url;
  for (const scenario of nginxUrl === undefined ? [] : scenarios) {
    const answers: Fetched[] = [];
    for (const server of ['nginx', 'nerkh'] as const) {
      const base = server === 'nginx' ? nginxUrl : nerkhUrl;
      const path = server === 'nginx' ? scenario.nginxPath : scenario.nerkhPath;
      const headers = scenario.conditional
        ? { ...scenario.headers, 'If-None-Match': etags[server] as string }
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

  // 3. Warm up every server (JIT, connection setup), then alternate the servers within each
  // scenario, reversing the order every other round; each measured run follows a few seconds of
  // the same load (reloadSeconds).
  const fullListServers = serverNames.filter((server) => servers[server] !== undefined);
  const results = new Map<string, Partial<Record<ServerName, LoadResult[]>>>();
  let footprint: { peakRssMB: number; startups: number[] } | null = null;
  if ([...parts].some(isLoadPart)) {
    for (const server of fullListServers) {
      await measure(server, fullList, etags, isNerkh(server) ? warmUpSeconds : server === 'nginx' ? 1 : 2);
    }
    for (const scenario of measuredScenarios) {
      results.set(scenario.name, Object.fromEntries(fullListServers.map((server) => [server, []])));
    }
    for (let round = 0; round < rounds; round++) {
      for (const scenario of measuredScenarios) {
        const order: ServerName[] =
          scenario === fullList
            ? [...fullListServers]
            : fullListServers.filter((s) => s === 'nginx' || s === 'nerkh');
        if (round % 2 === 1) order.reverse();
        for (const server of order) {
          await measure(server, scenario, etags, reloadSeconds);
          const redisCpuBefore = ownRedis?.cpuMicros() ?? 0;
          const pid = servers[server]?.pid ?? 0;
          const serverCpuBefore = processTreeCpuMicros(pid);
          const loadCoreBefore = loadCpu === undefined ? null : cpuTimes(loadCpu);
          const result = await measure(server, scenario, etags, seconds);
          const roundCpu: RoundCpu = {
            serverMicrosPerRequest: (processTreeCpuMicros(pid) - serverCpuBefore) / result.requests,
            loadCoreBusy:
              loadCpu === undefined || loadCoreBefore === null
                ? Number.NaN
                : busyShare(loadCoreBefore, cpuTimes(loadCpu)),
          };
          results.get(scenario.name)?.[server]?.push(result);
          if (scenario === fullList) fullListCpu[server].push(roundCpu);
          const cpu = `  CPU ${roundCpu.serverMicrosPerRequest.toFixed(1)} µs/req${Number.isNaN(roundCpu.loadCoreBusy) ? '' : `, wrk's core ${Math.round(100 * roundCpu.loadCoreBusy)} % busy`}`;
          let redisCpu = '';
          if (ownRedis !== null && usesRedisUnderLoad(server)) {
            const micros = (ownRedis.cpuMicros() - redisCpuBefore) / result.requests;
            redisCpuPerRequest[server].push(micros);
            redisCpu = `  Redis CPU ${micros.toFixed(1)} µs/req`;
          }
          console.log(
            `  round ${round + 1} ${scenario.name.padEnd(20)} ${server.padEnd(12)} ${integer(result.requestsPerSecond).padStart(7)} req/s  p50 ${result.p50Ms.toFixed(2)} ms  p99 ${result.p99Ms.toFixed(2)} ms  ${integer(result.bytesPerResponse)} B/resp${cpu}${redisCpu}`,
          );
        }
      }
    }
    for (const server of fullListServers) await stopServer(server);

    // 4 and 5 measure the process itself; under the profiler they would measure the profiler.
    if (parts.has('base') && !flags.profile) footprint = await measureFootprint(config, readyKey, etags);
  } else {
    await stopServer('nerkh');
  }

  // 6. Summary.
  const row = (cells: string[], widths: number[]) =>
    cells
      .map((cell, index) =>
        index === 0 ? cell.padEnd(widths[0] as number) : cell.padStart(widths[index] as number),
      )
      .join('  ');
  const fullRuns = results.get(fullList.name) ?? {};
  const runsOf = (server: ServerName) => fullRuns[server] ?? [];
  /** Median of the per-round ratios a ÷ b on the full list (both ran in every round). */
  const pairwise = (a: ServerName, b: ServerName) =>
    median(
      runsOf(a).map(
        (result, index) => result.requestsPerSecond / (runsOf(b)[index] as LoadResult).requestsPerSecond,
      ),
    );
  const ran = (server: ServerName) => runsOf(server).length > 0;
  const cpuOf = (server: ServerName) => fullListCpu[server];
  /** Median of the per-round ratios of CPU time per request, b's ÷ a's (above 1 where `a` costs less). */
  const pairwiseByCpu = (a: ServerName, b: ServerName) =>
    median(
      cpuOf(a).map(
        (round, index) => (cpuOf(b)[index] as RoundCpu).serverMicrosPerRequest / round.serverMicrosPerRequest,
      ),
    );
  const targetLines: string[] = [];
  const target = (label: string, value: string, goal: string, pass: boolean) =>
    targetLines.push(`  ${label.padEnd(52)} ${value}  (${goal})  ${verdict(pass)}`);
  /**
   * Under a ratio to bare node:http, when wrk's core was busy nearly throughout that server's
   * rounds: node:http could have served more than wrk asked, so the req/s ratio overstates `server`
   * against it, and the line under the target says so with the ratio by CPU time per request.
   */
  const noteLoadBoundFloor = (server: ServerName) => {
    if (cpuOf('floor').length === 0 || cpuOf(server).length === 0) return;
    const busy = median(cpuOf('floor').map((round) => round.loadCoreBusy));
    if (!(busy >= loadBoundBusy)) return;
    targetLines.push(
      `    (node:http was held back by wrk, its core ${Math.round(100 * busy)} % busy: by CPU per request, ${serverLabels[server]} ÷ node:http is ${pairwiseByCpu(server, 'floor').toFixed(2)})`,
    );
  };
  if (parts.has('base')) {
    const widths = [20, 11, 8, 8, 11, 8, 8, 7];
    console.log('');
    console.log(
      `Results (median of ${rounds} rounds, ${connections} connections, ${seconds} s each; ratio = median of pairwise nerkh ÷ nginx req/s)`,
    );
    console.log(
      row(
        ['scenario', 'nginx req/s', 'p50 ms', 'p99 ms', 'nerkh req/s', 'p50 ms', 'p99 ms', 'ratio'],
        widths,
      ),
    );
    const medians = new Map<string, { ratio: number; nerkhP99: number; nerkhBytes: number }>();
    for (const scenario of scenarios) {
      const runs = results.get(scenario.name) as Record<'nginx' | 'nerkh', LoadResult[]>;
      const ratios = runs.nerkh.map(
        (result, index) => result.requestsPerSecond / (runs.nginx[index] as LoadResult).requestsPerSecond,
      );
      const stat = (server: 'nginx' | 'nerkh', pick: (result: LoadResult) => number) =>
        median(runs[server].map(pick));
      const ratio = median(ratios);
      medians.set(scenario.name, {
        ratio,
        nerkhP99: stat('nerkh', (r) => r.p99Ms),
        nerkhBytes: stat('nerkh', (r) => r.bytesPerResponse),
      });
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
    for (const server of ['floor', 'raw'] as const) {
      console.log(
        row(
          [
            serverLabels[server],
            '',
            '',
            '',
            integer(median(runsOf(server).map((r) => r.requestsPerSecond))),
            median(runsOf(server).map((r) => r.p50Ms)).toFixed(2),
            median(runsOf(server).map((r) => r.p99Ms)).toFixed(2),
            pairwise(server, 'nginx').toFixed(2),
          ],
          widths,
        ),
      );
    }
    console.log(
      `  (the full list from bare node:http, and from raw TCP parsing no HTTP, neither checking a key, limiting or logging: what Node's HTTP server, and Node itself, can send here; nerkh ÷ node:http ${pairwise('nerkh', 'floor').toFixed(2)})`,
    );
    const full = medians.get(fullList.name) as { ratio: number; nerkhP99: number };
    const notModified = medians.get(notModifiedScenario.name) as { nerkhBytes: number };
    target(
      'full list ratio nerkh ÷ nginx',
      full.ratio.toFixed(2),
      `≥ ${targets.ratio}`,
      full.ratio >= targets.ratio,
    );
    target(
      'p99 at saturation (full list)',
      `${full.nerkhP99.toFixed(2)} ms`,
      `≤ ${targets.p99Ms} ms`,
      full.nerkhP99 <= targets.p99Ms,
    );
    // A 304 has no body: every byte of it is the status line and the header fields.
    target(
      'a 304, status line and header fields',
      `${Math.round(notModified.nerkhBytes)} B`,
      `≤ ${targets.notModifiedBytes} B`,
      notModified.nerkhBytes <= targets.notModifiedBytes,
    );
    const overFloor = pairwise('nerkh', 'floor');
    target(
      'nerkh ÷ node:http (full list)',
      overFloor.toFixed(2),
      `≥ ${targets.overNodeHttp}`,
      overFloor >= targets.overNodeHttp,
    );
    noteLoadBoundFloor('nerkh');
  }
  const extraServers = (['nerkhRedis', 'fastifyRedis', 'fastify', 'express'] as const).filter(ran);
  if (extraServers.length > 0) {
    const widths = [44, 9, 8, 8, 8, 9];
    console.log('');
    console.log(
      `Full list beside nerkh in memory (median of ${rounds} rounds, ${connections} connections, ${seconds} s each; ÷ nerkh = median of the pairwise req/s ratios)`,
    );
    console.log(row(['server', 'req/s', 'p50 ms', 'p99 ms', 'B/resp', '÷ nerkh'], widths));
    for (const server of ['nerkh', ...extraServers] as const) {
      const stat = (pick: (result: LoadResult) => number) => median(runsOf(server).map(pick));
      console.log(
        row(
          [
            serverLabels[server],
            integer(stat((r) => r.requestsPerSecond)),
            stat((r) => r.p50Ms).toFixed(2),
            stat((r) => r.p99Ms).toFixed(2),
            integer(stat((r) => r.bytesPerResponse)),
            pairwise(server, 'nerkh').toFixed(2),
          ],
          widths,
        ),
      );
    }
    console.log(
      '  (every row sends the same body behind a key check with a per-key limit and one access-log line per request; B/resp differs by the header fields each sends)',
    );
    const cpuRows = redisRows.filter((server) => redisCpuPerRequest[server].length > 0);
    if (cpuRows.length > 0) {
      console.log(
        `  (Redis CPU per request, median: ${cpuRows.map((server) => `${serverLabels[server]} ${median(redisCpuPerRequest[server]).toFixed(1)} µs`).join('; ')}; Redis ran on CPU ${loadCpu ?? 'any'}, not the servers')`,
      );
    }
    // A Redis command that times out sends nerkh to its in-memory limit for a while: then the
    // Redis row measured partly that, and says so.
    const fallbacks = ran('nerkhRedis') ? await limiterEvents(logLines(join(work, 'nerkh-redis.log'))) : [];
    if (fallbacks.length > 0) {
      console.log('  nerkh with Redis left Redis during the run; its row is partly in-memory limits:');
      for (const event of fallbacks) console.log(`    ${event}`);
    }
  }
  if (ran('nerkhRedis')) {
    const overMemory = pairwise('nerkhRedis', 'nerkh');
    target(
      'nerkh with Redis ÷ nerkh in memory',
      overMemory.toFixed(2),
      `≥ ${targets.redisOverMemory}`,
      overMemory >= targets.redisOverMemory,
    );
    if (ran('floor')) {
      const overFloor = pairwise('nerkhRedis', 'floor');
      target(
        'nerkh with Redis ÷ node:http',
        overFloor.toFixed(2),
        `≥ ${targets.redisOverNodeHttp}`,
        overFloor >= targets.redisOverNodeHttp,
      );
      noteLoadBoundFloor('nerkhRedis');
    }
    if (ran('fastifyRedis')) {
      const overPeer = pairwise('nerkhRedis', 'fastifyRedis');
      target(
        'nerkh with Redis ÷ Fastify peer with Redis',
        overPeer.toFixed(2),
        `≥ ${targets.redisOverPeer}`,
        overPeer >= targets.redisOverPeer,
      );
    }
  }
  for (const peer of ['fastify', 'express'] as const) {
    if (!ran(peer)) continue;
    const overPeer = pairwise('nerkh', peer);
    target(
      `nerkh ÷ ${serverLabels[peer]}`,
      overPeer.toFixed(2),
      `≥ ${targets.overPeers}`,
      overPeer >= targets.overPeers,
    );
  }
  if (footprint) {
    const { peakRssMB, startups } = footprint;
    const firstOk = median(startups);
    target(
      `peak RSS, ${integer(rssKeys)} keys, all used`,
      `${peakRssMB.toFixed(1)} MB`,
      `≤ ${targets.rssMB} MB`,
      peakRssMB <= targets.rssMB,
    );
    target(
      `start to first 200 (median of ${startupRuns})`,
      `${integer(firstOk)} ms`,
      `≤ ${targets.firstOkMs} ms`,
      firstOk <= targets.firstOkMs,
    );
    targetLines.push(`    [${startups.map(integer).join(', ')} ms]`);
  }
  const cpuServers = serverNames.filter((server) => fullListCpu[server].length > 0);
  if (cpuServers.length > 0) {
    const widths = [44, 11, 16, 18];
    console.log('');
    console.log(
      `CPU per request, full list (median of ${rounds} rounds: the server's user and system time ÷ the requests it answered)`,
    );
    console.log(row(['server', 'CPU µs/req', "wrk's core busy", '÷ node:http by CPU'], widths));
    for (const server of cpuServers) {
      const byCpu = cpuOf('floor').length === 0 ? '' : pairwiseByCpu(server, 'floor').toFixed(2);
      const busy = median(cpuOf(server).map((round) => round.loadCoreBusy));
      console.log(
        row(
          [
            serverLabels[server],
            median(cpuOf(server).map((round) => round.serverMicrosPerRequest)).toFixed(1),
            Number.isNaN(busy) ? 'not pinned' : `${Math.round(100 * busy)} %`,
            byCpu,
          ],
          widths,
        ),
      );
    }
    console.log(
      "  (where wrk's core is busy nearly all the time, wrk set the pace, not the server: that server's req/s understate what it can serve, and its CPU per request is the truer figure of its cost; the targets stay the req/s ratios)",
    );
  }
  if (targetLines.length > 0) {
    console.log('');
    console.log('Targets');
    for (const line of targetLines) console.log(line);
  }

  // 7. Two instances of each limiter, one key, one burst: what each admits.
  if (parts.has('burst')) {
    await measureOverAdmission({
      dataDir,
      publicUrl,
      workDir: work,
      redisUrl,
      redis: benchRedis as Redis,
      peerPrefix,
      bodyFile,
      readyKey,
      oneWindowKey,
      straddleKey,
      limit: burstLimit,
      windowSeconds: burstWindowSeconds,
      requests: burstRequests,
      ...onServerCpu,
    });
  }

  // 8. Redis cut off under load.
  if (parts.has('outage')) {
    await measureRedisOutage({
      dataDir,
      publicUrl,
      workDir: work,
      redisUrl,
      readyKey,
      loadKeys,
      limitedKey: outageKey,
      limit: burstLimit,
      limitedEvery: outageLimitedEvery,
      phaseSeconds: outagePhaseSeconds,
      connections,
      ...onServerCpu,
      ...(loadCpu === undefined ? {} : { loadCpu }),
    });
  }
} finally {
  for (const server of serverNames) await stopServer(server).catch(() => undefined);
  if (benchRedis !== null && ownRedis === null) {
    try {
      const deleted = await deleteBenchKeys(benchRedis, redisKeyIds, peerPrefix);
      console.log(`Redis: deleted the ${integer(deleted)} keys the bench wrote`);
    } catch (error) {
      console.log(
        `Redis: could not delete the bench's keys (${(error as Error).message}); they expire within a minute`,
      );
    }
  }
  benchRedis?.disconnect();
  await ownRedis?.stop();
  // Also after a failed run: the profile is what shows why it failed.
  if (flags.profile) {
    printProfile('nerkh', 'nerkh');
    printProfile('nerkhRedis', 'nerkh with its limits in Redis');
  }
  if (flags.keep) console.log(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
