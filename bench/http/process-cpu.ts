import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's CPU times (getconf CLK_TCK; 100 on Linux). */
const ticksPerSecond = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/**
 * The fields of /proc/PID/stat after the command's closing parenthesis (the command may hold one
 * too), or null once the process is gone: state is the first, the parent's pid the second, utime
 * and stime the 12th and 13th (proc(5)).
 */
function statFields(pid: number | string): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

const microsOf = (fields: string[]) => ((Number(fields[11]) + Number(fields[12])) / ticksPerSecond) * 1e6;

/** User and system CPU time of process `pid` since it started, in microseconds (0 once it is gone). */
export function processCpuMicros(pid: number): number {
  const fields = statFields(pid);
  return fields === null ? 0 : microsOf(fields);
}

/**
 * CPU time of `pid` and of its children, in microseconds: nginx serves from worker processes its
 * master started, and a process's own times leave out children still running.
 */
export function processTreeCpuMicros(pid: number): number {
  let micros = processCpuMicros(pid);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(entry);
    if (fields !== null && Number(fields[1]) === pid) micros += microsOf(fields);
  }
  return micros;
}

/** Busy and total time of one CPU so far, in clock ticks (the `cpuN` line of /proc/stat). */
export interface CpuTimes {
  busy: number;
  total: number;
}

/** The times of CPU `cpu`: busy is everything but idle and iowait (proc(5), /proc/stat). */
export function cpuTimes(cpu: number): CpuTimes {
  const line = readFileSync('/proc/stat', 'utf8')
    .split('\n')
    .find((text) => text.startsWith(`cpu${cpu} `));
  if (line === undefined) throw new Error(`/proc/stat has no line for CPU ${cpu}`);
  const times = line.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = times.reduce((sum, time) => sum + time, 0);
  const idle = (times[3] ?? 0) + (times[4] ?? 0);
  return { busy: total - idle, total };
}

/** The share of time CPU `cpu` was busy between two readings, 0 to 1. */
export function busyShare(before: CpuTimes, after: CpuTimes): number {
  const total = after.total - before.total;
  return total > 0 ? (after.busy - before.busy) / total : 0;
}
