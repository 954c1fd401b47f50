import { parseArgs } from 'node:util';
import { CommandLine } from '../../scripts/command-line.ts';
import { type BenchPart, benchParts, parseParts } from './parts.ts';

/** What the command line asks of a run of `npm run bench`. */
export interface BenchOptions {
  rounds: number;
  seconds: number;
  connections: number;
  /**
   * Seconds of load on each nerkh server before its first measured round. A process's first minute
   * holds events that each run some code for the first time: the first turn of the key cache's
   * periods (10 s), the first write of keys' last use (30 s), the first admissions to leave the
   * limit window and the limiter's first sweep (60 s). V8 deoptimizes the code they touch and
   * compiles it again, on the server's own core, and the p99 of that minute is several times the
   * p99 after it (docs/decisions/0035-bench-measures-servers-under-way.md). The rounds measure a
   * process at saturation, not one starting; 80 s is past the minute with room to spare.
   */
  warmUpSeconds: number;
  parts: Set<BenchPart>;
  /** --redis-url, or '' for the bench's own redis-server. */
  redisUrl: string;
  profile: boolean;
  keep: boolean;
}

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

/** A whole number ≥ 1 from an option's value, or the command line is refused. */
function countOption(name: string, value: string): number {
  const count = Number(value);
  if (!Number.isInteger(count) || count < 1)
    commandLine.refuse(`--${name} must be a whole number ≥ 1, not "${value}"`);
  return count;
}

/** The options of this process's command line; `--help` and a refused command line exit here. */
export function readOptions(): BenchOptions {
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
  return {
    rounds: countOption('rounds', flags.rounds),
    seconds: countOption('seconds', flags.seconds),
    connections: countOption('connections', flags.connections),
    warmUpSeconds: countOption('warm-up', flags['warm-up']),
    parts: commandLine.read(() => parseParts(flags.only)),
    redisUrl: flags['redis-url'] ?? '',
    profile: flags.profile,
    keep: flags.keep,
  };
}
