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
 *   - peak RSS ≤ 150 MB (Node 20; 170 MB on Node 24) with 100,000 keys issued, after every key
 *     was used through the server;
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
 * The steps, each in a file of bench/http/ named for it: options.ts reads the command line;
 * announce-run.ts prints the machine and the plan; start-redis.ts; build-bundle.ts; write-data.ts
 * (snapshot and keys); start-servers.ts and check-answers.ts (every server sends nerkh's bytes);
 * warm-up.ts; measure-rounds.ts; measure-footprint.ts (memory and start-up); report.ts (the tables
 * and "Targets"); over-admission.ts (the burst); redis-outage.ts (the Redis cut). bench-run.ts
 * holds what a run has started, and stops it all at the end, also after a failure.
 *
 * Run: npm run bench [-- OPTIONS]; `npm run bench -- --help` lists the options.
 */

import type { Redis } from 'ioredis';
import { announceRun } from './http/announce-run.ts';
import { newRun, removeWork, stopEverything, stopServer } from './http/bench-run.ts';
import { buildBundle } from './http/build-bundle.ts';
import { checkOthersSendNerkhBytes, checkScenarioAnswers } from './http/check-answers.ts';
import { integer } from './http/figures.ts';
import { type Footprint, measureFootprint } from './http/measure-footprint.ts';
import { measureRounds, noRounds } from './http/measure-rounds.ts';
import { readOptions } from './http/options.ts';
import { measureOverAdmission } from './http/over-admission.ts';
import { isLoadPart } from './http/parts.ts';
import { printProfile } from './http/print-profile.ts';
import { measureRedisOutage } from './http/redis-outage.ts';
import { printReport } from './http/report.ts';
import { requireTools } from './http/required-tools.ts';
import { serverNames } from './http/server-names.ts';
import { startRedis } from './http/start-redis.ts';
import { startServers } from './http/start-servers.ts';
import { warmUp } from './http/warm-up.ts';
import {
  benchKeys,
  burstLimit,
  burstRequests,
  burstWindowSeconds,
  outageLimitedEvery,
  outagePhaseSeconds,
  publicUrl,
} from './http/workload.ts';
import { writeBenchData } from './http/write-data.ts';

const options = readOptions();
const { parts } = options;
requireTools(parts);
const run = newRun(options);

try {
  announceRun(run);
  await startRedis(run);

  // 0. The production build, as a deployment makes it; bin/nerkh.js runs it.
  buildBundle();

  // 1. The data an operator's nerkh would have.
  const data = await writeBenchData(run);
  const { readyKey } = data;

  // 2. nerkh as a user runs it, and the other servers sending the exact bytes nerkh sends.
  const { plain, etags, gzipBytes, btcBytes } = await startServers(run, readyKey);
  await checkOthersSendNerkhBytes(run, plain, readyKey);
  console.log(
    `snapshot: ${data.rows} coins, ${integer(plain.body.length)} bytes JSON${parts.has('base') ? `, ${integer(gzipBytes)} gzip, BTC ${btcBytes} bytes` : ''}; ${integer(benchKeys)} keys rotated per request`,
  );
  await checkScenarioAnswers(run, etags, readyKey);

  // 3. Warm up every server, then the rounds.
  const loadServers = serverNames.filter((server) => run.servers[server] !== undefined);
  let measured = noRounds();
  let footprint: Footprint | null = null;
  if ([...parts].some(isLoadPart)) {
    await warmUp(run, loadServers, etags);
    measured = await measureRounds(run, loadServers, etags);
    for (const server of loadServers) await stopServer(run, server);

    // 4 and 5 measure the process itself; under the profiler they would measure the profiler.
    if (parts.has('base') && !options.profile)
      footprint = await measureFootprint(run, data.config, readyKey, etags);
  } else {
    await stopServer(run, 'nerkh');
  }

  // 6. Summary.
  await printReport(run, measured, footprint);

  // 7. Two instances of each limiter, one key, one burst: what each admits.
  if (parts.has('burst')) {
    await measureOverAdmission({
      dataDir: run.dataDir,
      publicUrl,
      workDir: run.work,
      redisUrl: run.redisUrl,
      redis: run.benchRedis as Redis,
      peerPrefix: run.peerPrefix,
      bodyFile: run.bodyFile,
      readyKey,
      oneWindowKey: data.oneWindowKey,
      straddleKey: data.straddleKey,
      limit: burstLimit,
      windowSeconds: burstWindowSeconds,
      requests: burstRequests,
      ...run.onServerCpu,
    });
  }

  // 8. Redis cut off under load.
  if (parts.has('outage')) {
    await measureRedisOutage({
      dataDir: run.dataDir,
      publicUrl,
      workDir: run.work,
      redisUrl: run.redisUrl,
      readyKey,
      loadKeys: data.loadKeys,
      limitedKey: data.outageKey,
      limit: burstLimit,
      limitedEvery: outageLimitedEvery,
      phaseSeconds: outagePhaseSeconds,
      connections: options.connections,
      ...run.onServerCpu,
      ...(run.loadCpu === undefined ? {} : { loadCpu: run.loadCpu }),
    });
  }
} finally {
  await stopEverything(run);
  // Also after a failed run: the profile is what shows why it failed.
  if (options.profile) {
    printProfile(run, 'nerkh', 'nerkh');
    printProfile(run, 'nerkhRedis', 'nerkh with its limits in Redis');
  }
  removeWork(run);
}
