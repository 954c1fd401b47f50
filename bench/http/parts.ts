/**
 * The parts of `npm run bench`, each runnable alone with `--only`:
 * - base: nerkh against nginx on four scenarios, the node:http and raw TCP references on the full
 *   list, then memory with 100,000 keys and start-up time;
 * - redis: nerkh sharing its limits through Redis, beside nerkh in memory, on the full list;
 * - peers: Fastify + @fastify/rate-limit (Redis store, and in memory) and Express +
 *   express-rate-limit (in memory), beside nerkh, on the full list;
 * - burst: two instances of each limiter, one key, a burst of requests: how many each admits;
 * - outage: nerkh under load while its connection to Redis is cut and restored.
 */
export const benchParts = ['base', 'redis', 'peers', 'burst', 'outage'] as const;
export type BenchPart = (typeof benchParts)[number];

/** `--only a,b`; every part when the flag is absent. */
export function parseParts(only: string | undefined): Set<BenchPart> {
  if (only === undefined) return new Set(benchParts);
  const parts = new Set<BenchPart>();
  for (const name of only.split(',').map((part) => part.trim())) {
    if (!(benchParts as readonly string[]).includes(name)) {
      throw new Error(`--only: unknown part "${name}"; the parts are ${benchParts.join(', ')}`);
    }
    parts.add(name as BenchPart);
  }
  if (parts.size === 0) throw new Error(`--only names no part; the parts are ${benchParts.join(', ')}`);
  return parts;
}

/** True when the part measures throughput in the rounds (and so needs nerkh in memory beside it). */
export function isLoadPart(part: BenchPart): boolean {
  return part === 'base' || part === 'redis' || part === 'peers';
}

interface Timing {
  rounds: number;
  seconds: number;
  /** Load on each nerkh server before its first round. */
  warmUpSeconds: number;
  /** Length of the burst's limit window: the straddling burst waits one out. */
  burstWindowSeconds: number;
  /** Length of each of the outage's three phases. */
  outagePhaseSeconds: number;
}

/**
 * Seconds of load, not measured, right before each measured run: every server meets its round's
 * load already running, not after the minute or more it idled while the others were measured.
 * After such a pause nerkh's first seconds of load ran V8's optimized code of node:http's request
 * path and its own against objects whose maps had changed meanwhile, and paid for it again in
 * deoptimizations and a higher p99 (docs/decisions/0035-bench-measures-servers-under-way.md). What
 * the rounds compare is servers at saturation.
 */
export const reloadSeconds = 2;

/**
 * Roughly how long the selected parts take, in seconds, from what each runs: the build and the
 * data first; per round one load run per server and scenario; warm-ups; waits.
 */
export function estimatedSeconds(parts: ReadonlySet<BenchPart>, timing: Timing): number {
  const { rounds, seconds } = timing;
  const loadRuns = (servers: number) => rounds * servers * (reloadSeconds + seconds);
  let total = 20;
  // nerkh in memory on the full list, warmed up: the yardstick of every load part.
  if ([...parts].some(isLoadPart)) total += timing.warmUpSeconds + (parts.has('base') ? 0 : loadRuns(1));
  // nginx and nerkh on four scenarios, node:http and raw TCP on the first; 90,000 more keys
  // issued, a few passes to use all 100,000, seven starts.
  if (parts.has('base')) total += 1 + loadRuns(9) + 15 + 3 * seconds + 7;
  if (parts.has('redis')) total += timing.warmUpSeconds + loadRuns(1);
  if (parts.has('peers')) total += 3 * 2 + loadRuns(3);
  if (parts.has('burst')) total += 10 + timing.burstWindowSeconds;
  if (parts.has('outage')) total += 5 + 3 * timing.outagePhaseSeconds;
  return total;
}
