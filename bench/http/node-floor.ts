import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { StaticServer } from './nginx.ts';

const serverScript = fileURLToPath(new URL('./node-floor-server.mjs', import.meta.url));

/** Starts the bare node:http reference server (node-floor-server.mjs) on `port`, optionally pinned. */
export async function startNodeFloor(options: {
  port: number;
  bodyFile: string;
  cpu?: number;
}): Promise<StaticServer> {
  const args = [serverScript, String(options.port), options.bodyFile];
  const command = options.cpu === undefined ? process.execPath : 'taskset';
  const commandArgs =
    options.cpu === undefined ? args : ['-c', String(options.cpu), process.execPath, ...args];
  const child = spawn(command, commandArgs, { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`node:http floor exited with ${code}`)));
    child.stdout.once('data', () => resolve());
  });
  child.removeAllListeners('exit');
  return {
    url: `http://127.0.0.1:${options.port}`,
    pid: child.pid ?? 0,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
