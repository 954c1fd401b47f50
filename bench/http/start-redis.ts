import { openBenchRedis } from './bench-redis.ts';
import type { BenchRun } from './bench-run.ts';
import { freePort } from './free-port.ts';
import { startBenchRedisServer } from './redis-server.ts';

/**
 * When a selected part uses Redis: the bench's own redis-server on the load generator's CPU, as on
 * a machine of its own in a deployment, or the one --redis-url names, unpinned; and the bench's
 * own connection to it.
 */
export async function startRedis(run: BenchRun): Promise<void> {
  const { parts } = run.options;
  const usesRedis = parts.has('redis') || parts.has('peers') || parts.has('burst') || parts.has('outage');
  if (!usesRedis) return;
  if (run.redisUrl === '') {
    run.ownRedis = await startBenchRedisServer({
      port: await freePort(),
      ...(run.loadCpu === undefined ? {} : { cpu: run.loadCpu }),
    });
    run.redisUrl = run.ownRedis.url;
    console.log(
      `Redis: the bench's own redis-server ${run.ownRedis.version} on CPU ${run.loadCpu ?? 'any'} (with wrk, as on a machine of its own), ${run.redisUrl}`,
    );
  } else {
    console.log(`Redis: ${run.redisUrl} (given, not pinned; the bench deletes the keys it writes)`);
  }
  run.benchRedis = await openBenchRedis(run.redisUrl);
}
