import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { StaticServer } from './nginx.ts';
import { pinned } from './pinned.ts';

/** The Node.js reference servers: bare node:http, and raw TCP with no HTTP parsing. */
const referenceScripts = {
  'node:http': fileURLToPath(new URL('./node-floor-server.mjs', import.meta.url)),
  'raw TCP': fileURLToPath(new URL('./raw-tcp-server.mjs', import.meta.url)),
};

/** Starts a reference server sending `bodyFile` on `port`, optionally pinned. */
export async function startNodeReference(
  kind: keyof typeof referenceScripts,
  options: { port: number; bodyFile: string; cpu?: number },
): Promise<StaticServer> {
  const args = [referenceScripts[kind], String(options.port), options.bodyFile];
  const child = spawn(...pinned(options.cpu, process.execPath, args), {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${kind} reference server exited with ${code}`)));
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
