/**
 * What a limit decision costs Redis, by how many admissions the key holds in its window: the
 * script of src/limiter/redis/sliding-log-script.ts, run through RedisRateLimiter as the API runs
 * it (a turn's decisions in script calls of `batchDecisions`), against a redis-server the bench
 * starts for itself (on CPU 1 when the machine has two). Each key first holds the given number
 * of admissions spread over its window, written in the script's format; the decisions then visit
 * the keys in turn on the caller's clock, advanced so that each decision of a key finds one of its
 * admissions expired and adds one, as a key used at a steady rate does. Redis's CPU time (/proc) ÷
 * decisions.
 * A last row measures the decision every API request asks for: a take on Redis's own clock
 * under the default limit, over keys that each hold a few admissions.
 * Run: npm run bench:redis-limiter [-- --seconds 4]
 */

import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { CommandLine } from '../scripts/command-line.ts';
import { batchDecisions } from '../src/limiter/redis/decision-batch.ts';
import { RedisRateLimiter } from '../src/limiter/redis-limiter.ts';
import type { RateLimitDecision } from '../src/limiter/types.ts';
import { freePort } from './http/free-port.ts';
import { startBenchRedisServer } from './http/redis-server.ts';

const commandLine = new CommandLine(
  'bench:redis-limiter',
  'Usage: npm run bench:redis-limiter [-- --seconds N]  (N seconds of decisions per key length; 4)',
);
const flags = commandLine.parse(
  () =>
    parseArgs({ options: { seconds: { type: 'string', default: '4' }, help: { type: 'boolean' } } }).values,
);
const seconds = Number(flags.seconds);
if (!(seconds > 0)) commandLine.refuse(`--seconds must be a positive number, not "${flags.seconds}"`);

/**
 * Admissions per key in its window: at most 60 under the default limit; up to about 200 for a key
 * of `npm run bench` after its warm-up (10,000 keys at about three requests a second each).
 */
const keyLengths = [10, 60, 300, 1000, 3000];
const keys = 1000;
const windowMs = 60_000;
const limit = 1_000_000;

const redisServer = await startBenchRedisServer({
  port: await freePort(),
  ...(availableParallelism() >= 2 ? { cpu: 1 } : {}),
});
const redis = new Redis(redisServer.url);
console.log(
  `redis-server ${redisServer.version}; ${keys} keys, window ${windowMs / 1000} s, ${batchDecisions} decisions per script call, ${seconds} s per row`,
);
console.log('admissions in window   decisions/s   Redis CPU per decision   key length after');
try {
  for (const length of keyLengths) {
    const prefix = `nerkh-bench-limiter:${length}:`;
    // The caller's clock moves on by this much per decision: each key comes round again after one
    // of its admissions has left the window.
    const stepMs = windowMs / (length * keys);
    const startMs = 1_000_000_000;
    for (let first = 0; first < keys; first += 100) {
      const pipeline = redis.pipeline();
      for (let key = first; key < first + 100; key++) {
        // Admission i of the key at (i + 1) window ÷ length before the key's first decision.
        const admissions = Buffer.alloc(length * 8);
        const firstDecisionMs = startMs + key * stepMs;
        for (let i = 0; i < length; i++) {
          const atMs = firstDecisionMs - windowMs + ((i + 1) * windowMs) / length - stepMs;
          admissions.writeDoubleBE(Math.floor(atMs * 1000), i * 8);
        }
        pipeline.set(`${prefix}{${key}}`, admissions, 'PX', windowMs);
      }
      await pipeline.exec();
    }
    const limiter = new RedisRateLimiter({ redis, windowMs, prefix, clock: 'caller' });
    const { refused, rate, perDecision } = await timedDecisions((index) =>
      limiter.take(String(index % keys), limit, startMs + index * stepMs),
    );
    if (refused > 0) throw new Error(`${refused} decisions refused under a limit of ${limit}`);
    const after = (await redis.strlen(`${prefix}{0}`)) / 8;
    console.log(
      `${String(length).padStart(20)}   ${rate.padStart(11)}   ${perDecision.padStart(22)}   ${String(after).padStart(16)}`,
    );
  }
  await apiPathRow();
} finally {
  redis.disconnect();
  await redisServer.stop();
}

/**
 * The API's own decision: a take on Redis's clock (what RedisRateLimiter does by default) under
 * the default limit of 60 a minute, the keys visited in turn. There are enough of them that none
 * reaches its limit within the row, so every decision admits and rewrites its key: 25,000 for each
 * second of the row, so each is visited fewer than 20 times while Redis decides fewer than 500,000
 * times a second (it decides about 150,000).
 */
async function apiPathRow(): Promise<void> {
  const apiLimit = 60;
  const apiKeys = 25_000 * Math.ceil(seconds);
  const limiter = new RedisRateLimiter({ redis, windowMs, prefix: 'nerkh-bench-limiter:api:' });
  const { refused, rate, perDecision } = await timedDecisions((index) =>
    limiter.take(String(index % apiKeys), apiLimit, 0),
  );
  if (refused > 0) throw new Error(`${refused} decisions refused: the row needs more keys than ${apiKeys}`);
  console.log(
    `as the API decides (Redis's clock, limit ${apiLimit}, ${apiKeys.toLocaleString('en')} keys in turn): ${rate} decisions/s, Redis CPU ${perDecision} per decision`,
  );
}

/**
 * Takes decisions for `seconds`, `batchDecisions` at once as the API sends a full script call,
 * decision i being `decide(i)`: how many were refused, how many were taken a second, and Redis's
 * CPU time per decision.
 */
async function timedDecisions(
  decide: (index: number) => Promise<RateLimitDecision>,
): Promise<{ refused: number; rate: string; perDecision: string }> {
  let decisions = 0;
  let refused = 0;
  const cpuBefore = redisServer.cpuMicros();
  const began = performance.now();
  while (performance.now() - began < seconds * 1000) {
    const turn = [];
    for (let i = 0; i < batchDecisions; i++, decisions++) turn.push(decide(decisions));
    for (const decision of await Promise.all(turn)) if (!decision.allowed) refused++;
  }
  const elapsedSeconds = (performance.now() - began) / 1000;
  const cpuMicros = redisServer.cpuMicros() - cpuBefore;
  return {
    refused,
    rate: Math.round(decisions / elapsedSeconds).toLocaleString('en'),
    perDecision: `${(cpuMicros / decisions).toFixed(1)} µs`,
  };
}
