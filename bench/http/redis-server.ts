import { spawnSync } from 'node:child_process';
import { Redis } from 'ioredis';
import { commandPath } from './command-path.ts';
import { spawnPinned, stopProcess } from './pinned.ts';
import { processCpuMicros } from './process-cpu.ts';

/** A Redis server the bench started for itself, and the CPU time it has used so far. */
export interface BenchRedisServer {
  url: string;
  /** The server's version, as `redis-server --version` prints it (`v=…`). */
  version: string;
  /** User and system CPU time of the server process since it started, in microseconds (/proc/PID/stat). */
  cpuMicros(): number;
  stop(): Promise<void>;
}

/**
 * Starts a Redis of the bench's own on `port` (on CPU `cpu` when given): nothing kept on disk, no
 * other program's keys, so the bench may read its CPU time and stop it at the end. Pinned with the
 * load generator, it is measured as a deployment runs it, on a machine of its own, instead of
 * taking turns on the API server's core (Linux wakes a server next to the process that wrote to
 * it, so an unpinned Redis runs about half of its time on that core).
 */
export async function startBenchRedisServer(options: {
  port: number;
  cpu?: number;
}): Promise<BenchRedisServer> {
  const binary = commandPath('redis-server');
  if (binary === null) {
    throw new Error('redis-server is not installed: apt-get install -y redis-server, or pass --redis-url');
  }
  const versionLine = spawnSync(binary, ['--version'], { encoding: 'utf8' }).stdout;
  const version = /v=(\S+)/.exec(versionLine)?.[1] ?? 'of unknown version';
  const args = ['--port', String(options.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  const { child, stderr } = spawnPinned(options.cpu, binary, args);
  const url = `redis://127.0.0.1:${options.port}`;
  const deadline = Date.now() + 5000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`redis-server exited: ${stderr().trim()}`);
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    // Refused until the server listens: connect() rejects with it, so the event says nothing new.
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      await probe.ping();
      break;
    } catch (error) {
      if (Date.now() > deadline)
        throw new Error(`redis-server did not answer in 5 s: ${(error as Error).message}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      probe.disconnect();
    }
  }
  const pid = child.pid ?? 0;
  return {
    url,
    version,
    cpuMicros: () => processCpuMicros(pid),
    stop: () => stopProcess(child, 'SIGTERM'),
  };
}
