import { type ChildProcess, spawn } from 'node:child_process';

/**
 * `command args…` as spawn takes it, run on CPU `cpu` through taskset when one is given, so the
 * servers and the load generator never compete for a core (util-linux taskset(1)).
 */
export function pinned(
  cpu: number | undefined,
  command: string,
  args: readonly string[],
): [string, string[]] {
  return cpu === undefined ? [command, [...args]] : ['taskset', ['-c', String(cpu), command, ...args]];
}

/** A server process the bench started, with what it wrote to standard error so far. */
export interface PinnedProcess {
  child: ChildProcess;
  stderr(): string;
}

/** Starts `command args…` (on CPU `cpu` when given), keeping its standard error for messages. */
export function spawnPinned(
  cpu: number | undefined,
  command: string,
  args: readonly string[],
): PinnedProcess {
  const child = spawn(...pinned(cpu, command, args), { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += String(chunk);
  });
  return { child, stderr: () => stderr };
}

/** Sends `signal` and resolves once the process has exited (at once when it already has). */
export function stopProcess(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}
