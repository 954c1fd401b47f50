import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { pinned } from './pinned.ts';

/** The installed bin, run exactly as an operator runs it. */
const binPath = fileURLToPath(new URL('../../bin/nerkh.js', import.meta.url));

/** The words of the bin's `#!/usr/bin/env -S NAME=value … node --flag …` line after `-S`. */
function binShebangWords(): string[] {
  const shebang = readFileSync(binPath, 'utf8').split('\n', 1)[0] ?? '';
  return shebang.split(/\s+/).slice(2);
}

/** The node flags on the bin's first line. */
function binNodeFlags(): string[] {
  return binShebangWords().filter((word) => word.startsWith('--'));
}

/** The environment the bin's first line sets for node (`NAME=value` words before `node`). */
function binEnvironment(): Record<string, string> {
  const assignments = binShebangWords().filter((word) => /^[A-Z_][A-Z0-9_]*=/.test(word));
  return Object.fromEntries(
    assignments.map((word) => [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]),
  );
}

export interface NerkhProcess {
  url: string;
  pid: number;
  /** Milliseconds from spawn to the first 200 on `/v1/rates` with a valid key. */
  firstOkMs: number;
  /** Peak resident set (VmHWM) so far, in KiB. */
  peakRssKiB(): number;
  /** SIGTERM, then waits for the exit; rejects unless it exits 0 (a clean, graceful stop). */
  stop(): Promise<void>;
}

export interface NerkhOptions {
  dataDir: string;
  port: number;
  publicUrl: string;
  /** Access log (stdout) goes here, as it would to a file or journald in production. */
  logFile: string;
  /** A valid key: readiness means an authenticated 200, not only a listening socket. */
  readyKey: string;
  cpu?: number;
  /** NERKH_REDIS_URL: limits shared through this Redis instead of kept in the process. */
  redisUrl?: string;
  /** Write a V8 CPU profile into this directory when the process exits (`node --cpu-prof`). */
  cpuProfDir?: string;
}

/** One GET; resolves to the status, or to null when nothing answers yet (refused, reset). */
function statusOf(url: string, key: string): Promise<number | null> {
  return new Promise((resolve) => {
    const req = request(url, { headers: { 'X-API-Key': key }, agent: false }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? null));
    });
    req.once('error', () => resolve(null));
    req.end();
  });
}

export function peakRssKiBOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmHWM:\s+(\d+) kB$/m.exec(status);
  if (!match) throw new Error(`no VmHWM in /proc/${pid}/status`);
  return Number(match[1]);
}

/**
 * Starts `node bin/nerkh.js serve --role api` on the data directory, as a user runs it: one
 * process, SQLite, the in-memory limiter (or Redis's, with `redisUrl`), LOG_LEVEL=info (one
 * access-log line per request). Settings come only through the documented environment variables.
 */
export async function startNerkh(options: NerkhOptions): Promise<NerkhProcess> {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (name.startsWith('NERKH_') || name === 'NODE_OPTIONS' || name === 'LOG_LEVEL') continue;
    env[name] = value;
  }
  Object.assign(env, {
    PORT: String(options.port),
    HOST: '127.0.0.1',
    NERKH_DATA_DIR: options.dataDir,
    NERKH_PUBLIC_URL: options.publicUrl,
    LOG_LEVEL: 'info',
  });
  if (options.redisUrl !== undefined) env.NERKH_REDIS_URL = options.redisUrl;
  if (options.cpuProfDir !== undefined) Object.assign(env, binEnvironment());
  // Started as its bin is (a user's `nerkh serve`), so the node flags on its first line apply.
  // Node does not take --cpu-prof from NODE_OPTIONS: a profiled run starts node itself, with the
  // bin's environment and flags and the profiler's.
  const serveArgs = ['serve', '--role', 'api'];
  const [command, args] = options.cpuProfDir
    ? pinned(options.cpu, process.execPath, [
        ...binNodeFlags(),
        '--cpu-prof',
        `--cpu-prof-dir=${options.cpuProfDir}`,
        binPath,
        ...serveArgs,
      ])
    : pinned(options.cpu, binPath, serveArgs);
  const logFd = openSync(options.logFile, 'a');
  const startedAt = performance.now();
  const child: ChildProcess = spawn(command, args, { env, stdio: ['ignore', logFd, 'pipe'] });
  closeSync(logFd);
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${options.port}`;
  const ratesUrl = `${url}/v1/rates`;
  const deadline = startedAt + 30_000;
  let firstOkMs = -1;
  while (performance.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`nerkh exited with ${child.exitCode}: ${stderr.trim()}`);
    const status = await statusOf(ratesUrl, options.readyKey);
    if (status === 200) {
      firstOkMs = performance.now() - startedAt;
      break;
    }
    if (status !== null && status !== 503) throw new Error(`nerkh answered ${status} to a valid key`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  if (firstOkMs < 0) {
    child.kill('SIGKILL');
    throw new Error(`nerkh served no 200 within 30 s: ${stderr.trim()}`);
  }
  const pid = child.pid ?? 0;
  return {
    url,
    pid,
    firstOkMs,
    peakRssKiB: () => peakRssKiBOf(pid),
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      const code = await exited;
      if (code !== 0) throw new Error(`nerkh stopped with exit code ${code}: ${stderr.trim()}`);
    },
  };
}
