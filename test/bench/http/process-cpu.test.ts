import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import {
  busyShare,
  cpuTimes,
  processCpuMicros,
  processTreeCpuMicros,
} from '../../../bench/http/process-cpu.ts';

/** Burns `ms` of its own CPU time (however long that takes on a busy machine), then prints `done` and waits. */
const burn = (ms: number) =>
  `while (process.cpuUsage().user + process.cpuUsage().system < ${ms * 1000}); process.stdout.write('done'); setInterval(() => {}, 1000);`;

const started: ChildProcess[] = [];
afterEach(() => {
  // Each in a process group of its own: the group goes, with any child it started.
  for (const child of started.splice(0)) process.kill(-(child.pid as number), 'SIGKILL');
});

/** Starts `command args…` in a process group of its own; resolves once it printed its first output. */
async function startAndWait(command: string, args: string[]): Promise<ChildProcess> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'], detached: true });
  started.push(child);
  await once(child.stdout as NodeJS.ReadableStream, 'data');
  return child;
}

describe('processCpuMicros', () => {
  it("counts a process's own CPU time: a process that burned 300 ms of CPU shows about that", async () => {
    const child = await startAndWait(process.execPath, ['-e', burn(300)]);
    const micros = processCpuMicros(child.pid as number);
    expect(micros).toBeGreaterThanOrEqual(250_000);
    expect(micros).toBeLessThan(5_000_000);
  });

  it('reads 0 for a process that is gone, rather than failing the bench', async () => {
    const child = spawn(process.execPath, ['-e', '']);
    await once(child, 'exit');
    expect(processCpuMicros(child.pid as number)).toBe(0);
  });
});

describe('processTreeCpuMicros', () => {
  it('adds the CPU time of children still running, as nginx serves from workers its master started', async () => {
    // A shell that starts a busy node child and stays its parent, as nginx's master stays the workers'.
    const script = `"${process.execPath}" -e "${burn(300)}" & wait`;
    const shell = await startAndWait('sh', ['-c', script]);
    const pid = shell.pid as number;
    expect(processCpuMicros(pid)).toBeLessThan(100_000);
    expect(processTreeCpuMicros(pid)).toBeGreaterThanOrEqual(250_000);
  });
});

describe('cpuTimes and busyShare', () => {
  it('tell how busy a core was between two readings, between 0 and 1', async () => {
    const before = cpuTimes(0);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const after = cpuTimes(0);
    expect(after.total).toBeGreaterThanOrEqual(before.total);
    expect(after.busy).toBeLessThanOrEqual(after.total);
    const share = busyShare(before, after);
    expect(share).toBeGreaterThanOrEqual(0);
    expect(share).toBeLessThanOrEqual(1);
  });

  it('refuses a CPU the machine does not have instead of reporting it idle', () => {
    expect(() => cpuTimes(4096)).toThrow(/no line for CPU 4096/);
  });
});
