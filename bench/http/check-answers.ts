import type { BenchRun } from './bench-run.ts';
import { type Fetched, get } from './http-get.ts';
import type { Etags } from './measure-load.ts';
import { scenarios } from './scenarios.ts';
import { serverLabels } from './server-names.ts';

/** Every other server sends nerkh's bytes on the full list, and refuses what nerkh refuses. */
export async function checkOthersSendNerkhBytes(
  run: BenchRun,
  plain: Fetched,
  readyKey: string,
): Promise<void> {
  const auth = { 'X-API-Key': readyKey };
  for (const server of ['floor', 'raw', 'nerkhRedis', 'fastifyRedis', 'fastify', 'express'] as const) {
    const url = run.servers[server]?.url;
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
}

/** nginx and nerkh answer every scenario with the expected status and the same body. */
export async function checkScenarioAnswers(run: BenchRun, etags: Etags, readyKey: string): Promise<void> {
  const auth = { 'X-API-Key': readyKey };
  const nginxUrl = run.servers.nginx?.url;
  const nerkhUrl = run.servers.nerkh?.url;
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
}
