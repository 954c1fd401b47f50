import { spawn } from 'node:child_process';
import type { StaticServer } from './nginx.ts';
import { pinned, stopProcess } from './pinned.ts';

interface NodeServerOptions {
  port: number;
  cpu?: number;
  /** Added to the bench's own environment. */
  env?: Record<string, string>;
}

/**
 * Runs `node <script> <args…>` (on CPU `cpu` when given) and resolves once it prints its first
 * line, which each bench server script does once it listens on `port`.
 */
export async function startNodeServer(
  label: string,
  script: string,
  args: readonly string[],
  options: NodeServerOptions,
): Promise<StaticServer> {
  const child = spawn(...pinned(options.cpu, process.execPath, [script, ...args]), {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...options.env },
  });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${label} exited with ${code}`)));
    child.stdout.once('data', () => resolve());
  });
  child.removeAllListeners('exit');
  return {
    url: `http://127.0.0.1:${options.port}`,
    pid: child.pid ?? 0,
    stop: () => stopProcess(child, 'SIGTERM'),
  };
}
