import type { BenchRun } from './bench-run.ts';
import { integer } from './figures.ts';
import { type Etags, measureLoad } from './measure-load.ts';
import { reloadSeconds } from './parts.ts';
import { busyShare, cpuTimes, processTreeCpuMicros } from './process-cpu.ts';
import { fullList, measuredScenarios } from './scenarios.ts';
import { type RedisRow, type ServerName, serverNames, usesRedisUnderLoad } from './server-names.ts';
import type { LoadResult } from './wrk.ts';

/**
 * What each full-list round of a server cost in CPU: the server's own time per request, and the
 * share of its time the load generator's core was busy. A server's req/s are capped by the load
 * generator as well as by the server: where wrk's core is busy throughout, a faster server could
 * not show it, and its CPU time per request is the measure of its cost that wrk does not cap.
 */
export interface RoundCpu {
  serverMicrosPerRequest: number;
  loadCoreBusy: number;
}

/** Every measured round, by scenario and server, in the order they ran. */
export interface RoundResults {
  results: Map<string, Partial<Record<ServerName, LoadResult[]>>>;
  fullListCpu: Record<ServerName, RoundCpu[]>;
  /** The bench's own Redis's CPU time per request in each round of the rows that use it. */
  redisCpuPerRequest: Record<RedisRow, number[]>;
}

/** No rounds: the run measured no load part. */
export function noRounds(): RoundResults {
  return {
    results: new Map(),
    fullListCpu: Object.fromEntries(
      serverNames.map((server): [ServerName, RoundCpu[]] => [server, []]),
    ) as Record<ServerName, RoundCpu[]>,
    redisCpuPerRequest: { nerkhRedis: [], fastifyRedis: [] },
  };
}

/**
 * --rounds rounds: in each, every scenario, with the servers alternating within it (all of them on
 * the full list, nginx and nerkh on the others), in the reverse order every other round; each
 * measured run follows a few seconds of the same load (reloadSeconds). Prints each run as it ends.
 */
export async function measureRounds(
  run: BenchRun,
  servers: readonly ServerName[],
  etags: Etags,
): Promise<RoundResults> {
  const { rounds, seconds, parts } = run.options;
  const { loadCpu, ownRedis } = run;
  const measured = noRounds();
  const { results, fullListCpu, redisCpuPerRequest } = measured;
  for (const scenario of measuredScenarios(parts)) {
    results.set(scenario.name, Object.fromEntries(servers.map((server) => [server, []])));
  }
  for (let round = 0; round < rounds; round++) {
    for (const scenario of measuredScenarios(parts)) {
      const order: ServerName[] =
        scenario === fullList ? [...servers] : servers.filter((s) => s === 'nginx' || s === 'nerkh');
      if (round % 2 === 1) order.reverse();
      for (const server of order) {
        await measureLoad(run, server, scenario, etags, reloadSeconds);
        const redisCpuBefore = ownRedis?.cpuMicros() ?? 0;
        const pid = run.servers[server]?.pid ?? 0;
        const serverCpuBefore = processTreeCpuMicros(pid);
        const loadCoreBefore = loadCpu === undefined ? null : cpuTimes(loadCpu);
        const result = await measureLoad(run, server, scenario, etags, seconds);
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
  return measured;
}
