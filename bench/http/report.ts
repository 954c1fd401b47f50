import { join } from 'node:path';
import type { BenchRun } from './bench-run.ts';
import { integer, median, row, verdict } from './figures.ts';
import type { Footprint } from './measure-footprint.ts';
import type { RoundCpu, RoundResults } from './measure-rounds.ts';
import { limiterEvents, logLines } from './nerkh-log.ts';
import { fullList, notModifiedScenario, scenarios } from './scenarios.ts';
import { redisRows, type ServerName, serverLabels, serverNames } from './server-names.ts';
import { rssKeys, startupRuns, targets } from './workload.ts';
import type { LoadResult } from './wrk.ts';

/** Over this share of its time busy, wrk's core set the pace of a round, not the server. */
const loadBoundBusy = 0.95;

/** The medians the report reads from the rounds, and the "Targets" lines it collects on the way. */
class Summary {
  readonly targetLines: string[] = [];
  readonly #measured: RoundResults;

  constructor(measured: RoundResults) {
    this.#measured = measured;
  }

  runsOf(server: ServerName): LoadResult[] {
    return this.#measured.results.get(fullList.name)?.[server] ?? [];
  }

  ran(server: ServerName): boolean {
    return this.runsOf(server).length > 0;
  }

  cpuOf(server: ServerName): RoundCpu[] {
    return this.#measured.fullListCpu[server];
  }

  /** Median of the per-round ratios a ÷ b on the full list (both ran in every round). */
  pairwise(a: ServerName, b: ServerName): number {
    return median(
      this.runsOf(a).map(
        (result, index) => result.requestsPerSecond / (this.runsOf(b)[index] as LoadResult).requestsPerSecond,
      ),
    );
  }

  /** Median of the per-round ratios of CPU time per request, b's ÷ a's (above 1 where `a` costs less). */
  pairwiseByCpu(a: ServerName, b: ServerName): number {
    return median(
      this.cpuOf(a).map(
        (round, index) =>
          (this.cpuOf(b)[index] as RoundCpu).serverMicrosPerRequest / round.serverMicrosPerRequest,
      ),
    );
  }

  target(label: string, value: string, goal: string, pass: boolean): void {
    this.targetLines.push(`  ${label.padEnd(52)} ${value}  (${goal})  ${verdict(pass)}`);
  }

  /**
   * Under a ratio to bare node:http, when wrk's core was busy nearly throughout that server's
   * rounds: node:http could have served more than wrk asked, so the req/s ratio overstates `server`
   * against it, and the line under the target says so with the ratio by CPU time per request.
   */
  noteLoadBoundFloor(server: ServerName): void {
    if (this.cpuOf('floor').length === 0 || this.cpuOf(server).length === 0) return;
    const busy = median(this.cpuOf('floor').map((round) => round.loadCoreBusy));
    if (!(busy >= loadBoundBusy)) return;
    this.targetLines.push(
      `    (node:http was held back by wrk, its core ${Math.round(100 * busy)} % busy: by CPU per request, ${serverLabels[server]} ÷ node:http is ${this.pairwiseByCpu(server, 'floor').toFixed(2)})`,
    );
  }
}

/** nginx against nerkh on every scenario, the node:http and raw TCP references, and their targets. */
function printNginxTable(run: BenchRun, measured: RoundResults, summary: Summary): void {
  const { rounds, connections, seconds } = run.options;
  const widths = [20, 11, 8, 8, 11, 8, 8, 7];
  console.log('');
  console.log(
    `Results (median of ${rounds} rounds, ${connections} connections, ${seconds} s each; ratio = median of pairwise nerkh ÷ nginx req/s)`,
  );
  console.log(
    row(['scenario', 'nginx req/s', 'p50 ms', 'p99 ms', 'nerkh req/s', 'p50 ms', 'p99 ms', 'ratio'], widths),
  );
  const medians = new Map<string, { ratio: number; nerkhP99: number; nerkhBytes: number }>();
  for (const scenario of scenarios) {
    const runs = measured.results.get(scenario.name) as Record<'nginx' | 'nerkh', LoadResult[]>;
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
    const runs = summary.runsOf(server);
    console.log(
      row(
        [
          serverLabels[server],
          '',
          '',
          '',
          integer(median(runs.map((r) => r.requestsPerSecond))),
          median(runs.map((r) => r.p50Ms)).toFixed(2),
          median(runs.map((r) => r.p99Ms)).toFixed(2),
          summary.pairwise(server, 'nginx').toFixed(2),
        ],
        widths,
      ),
    );
  }
  console.log(
    `  (the full list from bare node:http, and from raw TCP parsing no HTTP, neither checking a key, limiting or logging: what Node's HTTP server, and Node itself, can send here; nerkh ÷ node:http ${summary.pairwise('nerkh', 'floor').toFixed(2)})`,
  );
  const full = medians.get(fullList.name) as { ratio: number; nerkhP99: number };
  const notModified = medians.get(notModifiedScenario.name) as { nerkhBytes: number };
  summary.target(
    'full list ratio nerkh ÷ nginx',
    full.ratio.toFixed(2),
    `≥ ${targets.ratio}`,
    full.ratio >= targets.ratio,
  );
  summary.target(
    'p99 at saturation (full list)',
    `${full.nerkhP99.toFixed(2)} ms`,
    `≤ ${targets.p99Ms} ms`,
    full.nerkhP99 <= targets.p99Ms,
  );
  // A 304 has no body: every byte of it is the status line and the header fields.
  summary.target(
    'a 304, status line and header fields',
    `${Math.round(notModified.nerkhBytes)} B`,
    `≤ ${targets.notModifiedBytes} B`,
    notModified.nerkhBytes <= targets.notModifiedBytes,
  );
  const overFloor = summary.pairwise('nerkh', 'floor');
  summary.target(
    'nerkh ÷ node:http (full list)',
    overFloor.toFixed(2),
    `≥ ${targets.overNodeHttp}`,
    overFloor >= targets.overNodeHttp,
  );
  summary.noteLoadBoundFloor('nerkh');
}

/** nerkh with Redis and the peers beside nerkh in memory, on the full list. */
async function printBesideNerkh(run: BenchRun, measured: RoundResults, summary: Summary): Promise<void> {
  const { rounds, connections, seconds } = run.options;
  const extraServers = (['nerkhRedis', 'fastifyRedis', 'fastify', 'express'] as const).filter((server) =>
    summary.ran(server),
  );
  if (extraServers.length === 0) return;
  const widths = [44, 9, 8, 8, 8, 9];
  console.log('');
  console.log(
    `Full list beside nerkh in memory (median of ${rounds} rounds, ${connections} connections, ${seconds} s each; ÷ nerkh = median of the pairwise req/s ratios)`,
  );
  console.log(row(['server', 'req/s', 'p50 ms', 'p99 ms', 'B/resp', '÷ nerkh'], widths));
  for (const server of ['nerkh', ...extraServers] as const) {
    const stat = (pick: (result: LoadResult) => number) => median(summary.runsOf(server).map(pick));
    console.log(
      row(
        [
          serverLabels[server],
          integer(stat((r) => r.requestsPerSecond)),
          stat((r) => r.p50Ms).toFixed(2),
          stat((r) => r.p99Ms).toFixed(2),
          integer(stat((r) => r.bytesPerResponse)),
          summary.pairwise(server, 'nerkh').toFixed(2),
        ],
        widths,
      ),
    );
  }
  console.log(
    '  (every row sends the same body behind a key check with a per-key limit and one access-log line per request; B/resp differs by the header fields each sends)',
  );
  const cpuRows = redisRows.filter((server) => measured.redisCpuPerRequest[server].length > 0);
  if (cpuRows.length > 0) {
    console.log(
      `  (Redis CPU per request, median: ${cpuRows.map((server) => `${serverLabels[server]} ${median(measured.redisCpuPerRequest[server]).toFixed(1)} µs`).join('; ')}; Redis ran on CPU ${run.loadCpu ?? 'any'}, not the servers')`,
    );
  }
  // A Redis command that times out sends nerkh to its in-memory limit for a while: then the
  // Redis row measured partly that, and says so.
  const fallbacks = summary.ran('nerkhRedis')
    ? await limiterEvents(logLines(join(run.work, 'nerkh-redis.log')))
    : [];
  if (fallbacks.length > 0) {
    console.log('  nerkh with Redis left Redis during the run; its row is partly in-memory limits:');
    for (const event of fallbacks) console.log(`    ${event}`);
  }
}

/** The targets of the Redis row, the peers and the footprint. */
function addOtherTargets(summary: Summary, footprint: Footprint | null): void {
  if (summary.ran('nerkhRedis')) {
    const overMemory = summary.pairwise('nerkhRedis', 'nerkh');
    summary.target(
      'nerkh with Redis ÷ nerkh in memory',
      overMemory.toFixed(2),
      `≥ ${targets.redisOverMemory}`,
      overMemory >= targets.redisOverMemory,
    );
    if (summary.ran('floor')) {
      const overFloor = summary.pairwise('nerkhRedis', 'floor');
      summary.target(
        'nerkh with Redis ÷ node:http',
        overFloor.toFixed(2),
        `≥ ${targets.redisOverNodeHttp}`,
        overFloor >= targets.redisOverNodeHttp,
      );
      summary.noteLoadBoundFloor('nerkhRedis');
    }
    if (summary.ran('fastifyRedis')) {
      const overPeer = summary.pairwise('nerkhRedis', 'fastifyRedis');
      summary.target(
        'nerkh with Redis ÷ Fastify peer with Redis',
        overPeer.toFixed(2),
        `≥ ${targets.redisOverPeer}`,
        overPeer >= targets.redisOverPeer,
      );
    }
  }
  for (const peer of ['fastify', 'express'] as const) {
    if (!summary.ran(peer)) continue;
    const overPeer = summary.pairwise('nerkh', peer);
    summary.target(
      `nerkh ÷ ${serverLabels[peer]}`,
      overPeer.toFixed(2),
      `≥ ${targets.overPeers}`,
      overPeer >= targets.overPeers,
    );
  }
  if (footprint) {
    const { peakRssMB, startups } = footprint;
    const firstOk = median(startups);
    summary.target(
      `peak RSS, ${integer(rssKeys)} keys, all used`,
      `${peakRssMB.toFixed(1)} MB`,
      `≤ ${targets.rssMB} MB`,
      peakRssMB <= targets.rssMB,
    );
    summary.target(
      `start to first 200 (median of ${startupRuns})`,
      `${integer(firstOk)} ms`,
      `≤ ${targets.firstOkMs} ms`,
      firstOk <= targets.firstOkMs,
    );
    summary.targetLines.push(`    [${startups.map(integer).join(', ')} ms]`);
  }
}

/** Each server's CPU time per request on the full list, and how busy wrk's core was meanwhile. */
function printCpuTable(run: BenchRun, summary: Summary): void {
  const cpuServers = serverNames.filter((server) => summary.cpuOf(server).length > 0);
  if (cpuServers.length === 0) return;
  const widths = [44, 11, 16, 18];
  console.log('');
  console.log(
    `CPU per request, full list (median of ${run.options.rounds} rounds: the server's user and system time ÷ the requests it answered)`,
  );
  console.log(row(['server', 'CPU µs/req', "wrk's core busy", '÷ node:http by CPU'], widths));
  for (const server of cpuServers) {
    const byCpu =
      summary.cpuOf('floor').length === 0 ? '' : summary.pairwiseByCpu(server, 'floor').toFixed(2);
    const busy = median(summary.cpuOf(server).map((round) => round.loadCoreBusy));
    console.log(
      row(
        [
          serverLabels[server],
          median(summary.cpuOf(server).map((round) => round.serverMicrosPerRequest)).toFixed(1),
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

/**
 * The summary of the rounds and the footprint: the tables (nginx and nerkh on every scenario, the
 * servers beside nerkh, CPU per request) and then each target with the run's value and its verdict.
 */
export async function printReport(
  run: BenchRun,
  measured: RoundResults,
  footprint: Footprint | null,
): Promise<void> {
  const summary = new Summary(measured);
  if (run.options.parts.has('base')) printNginxTable(run, measured, summary);
  await printBesideNerkh(run, measured, summary);
  addOtherTargets(summary, footprint);
  printCpuTable(run, summary);
  if (summary.targetLines.length > 0) {
    console.log('');
    console.log('Targets');
    for (const line of summary.targetLines) console.log(line);
  }
}
