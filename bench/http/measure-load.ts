import type { BenchRun } from './bench-run.ts';
import type { Scenario } from './scenarios.ts';
import { isNerkh, type ServerName } from './server-names.ts';
import { type LoadResult, runWrk } from './wrk.ts';

/** Each server's own ETag of the full list, for the conditional scenario. */
export type Etags = Partial<Record<ServerName, string>>;

/**
 * One wrk run of `durationSeconds` on a running server in a scenario, rotating the bench's keys
 * from `keyOffset`. Any response ≥ 400 or socket error voids it: a 429 means a key hit its limit.
 */
export async function measureLoad(
  run: BenchRun,
  server: ServerName,
  scenario: Scenario,
  etags: Etags,
  durationSeconds: number,
  keyOffset = 0,
): Promise<LoadResult> {
  const base = run.servers[server]?.url;
  if (base === undefined) throw new Error(`${server} is not running`);
  const path = isNerkh(server) ? scenario.nerkhPath : scenario.nginxPath;
  const headers = scenario.conditional
    ? { ...scenario.headers, 'If-None-Match': etags[server] as string }
    : scenario.headers;
  const result = await runWrk({
    url: `${base}${path}`,
    connections: run.options.connections,
    durationSeconds,
    headers,
    keysFile: run.keysFile,
    keyOffset,
    ...(run.loadCpu === undefined ? {} : { cpu: run.loadCpu }),
    workDir: run.work,
  });
  if (result.requests === 0 || result.failed > 0 || result.socketErrors > 0) {
    throw new Error(
      `invalid run (${server}, ${scenario.name}): ${result.failed} responses ≥ 400 and ${result.socketErrors} socket errors of ${result.requests}; a 429 means a key hit its limit`,
    );
  }
  return result;
}
