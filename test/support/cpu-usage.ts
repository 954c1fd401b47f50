import { readdirSync, readFileSync } from 'node:fs';

/**
 * Who used the machine's CPU over an interval, read from Linux's /proc (proc(5): utime and stime
 * of /proc/PID/stat, in clock ticks). The Lighthouse audit uses it to tell the page's own cost
 * from another program's: a timed run on a 2-core machine measures everything that runs beside it.
 * Hand-written: no maintained package reads per-process CPU time without starting `ps` or `top`.
 */

/** Linux's USER_HZ, fixed at 100 on every architecture Node runs on (proc(5), "clock ticks"). */
const ticksPerSecond = 100;

interface ProcessTime {
  name: string;
  parent: number;
  ticks: number;
}

function readProcesses(): Map<number, ProcessTime> {
  const processes = new Map<number, ProcessTime>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
    } catch {
      continue; // It exited between the listing and the read.
    }
    // The name is in parentheses and may itself hold spaces or parentheses: the fields follow the last ")".
    const close = stat.lastIndexOf(')');
    const fields = stat.slice(close + 2).split(' ');
    processes.set(Number(entry), {
      name: stat.slice(stat.indexOf('(') + 1, close),
      parent: Number(fields[1]),
      ticks: Number(fields[11]) + Number(fields[12]),
    });
  }
  return processes;
}

/** The start of a process's command line, which says more than its name ("node" for most tests). */
function commandOf(pid: number): string | undefined {
  try {
    const command = readFileSync(`/proc/${pid}/cmdline`, 'latin1').replaceAll('\0', ' ').trim();
    return command === '' ? undefined : command.slice(0, 80);
  } catch {
    return undefined;
  }
}

export interface OtherUse {
  /** CPU milliseconds used by processes outside the given trees over the interval. */
  ms: number;
  /** The busiest of them, as `name (pid): ms`, at most three. */
  busiest: string[];
}

/** A running count of the CPU time used by every process except `ours` and their descendants. */
export class CpuUsage {
  private before = readProcesses();
  private startedAt = Date.now();

  constructor(private readonly ours: () => readonly number[]) {}

  /** Starts a new interval. */
  restart(): void {
    this.before = readProcesses();
    this.startedAt = Date.now();
  }

  /** Milliseconds since the interval began. */
  elapsedMs(): number {
    return Date.now() - this.startedAt;
  }

  /**
   * What the other processes used since the interval began. A process that started during it
   * counts whole; one that ended during it is not seen (its time went to its parent only when reaped).
   */
  others(): OtherUse {
    const now = readProcesses();
    const mine = new Set(this.ours());
    const isOurs = (pid: number): boolean => {
      for (let at = pid, depth = 0; at > 1 && depth < 64; depth++) {
        if (mine.has(at)) return true;
        at = now.get(at)?.parent ?? 0;
      }
      return false;
    };
    const used: Array<[string, number]> = [];
    for (const [pid, process] of now) {
      if (isOurs(pid)) continue;
      const ms = ((process.ticks - (this.before.get(pid)?.ticks ?? 0)) * 1000) / ticksPerSecond;
      if (ms > 0) used.push([`${commandOf(pid) ?? process.name} (${pid})`, ms]);
    }
    used.sort((a, b) => b[1] - a[1]);
    return {
      ms: used.reduce((sum, [, ms]) => sum + ms, 0),
      busiest: used.slice(0, 3).map(([name, ms]) => `${name}: ${Math.round(ms)} ms`),
    };
  }
}
