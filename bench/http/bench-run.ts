import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { deleteBenchKeys } from './bench-redis.ts';
import { integer } from './figures.ts';
import type { NerkhProcess } from './nerkh.ts';
import type { StaticServer } from './nginx.ts';
import type { BenchOptions } from './options.ts';
import type { BenchRedisServer } from './redis-server.ts';
import { type ServerName, serverNames } from './server-names.ts';

/** One run of the bench: its options, where it runs what, its files, and what it has started. */
export interface BenchRun {
  options: BenchOptions;
  /**
   * Layout on a machine with ≥ 2 CPUs: the servers pinned to CPU 0, wrk (and the bench's own
   * Redis) to CPU 1, so the servers get one core each and never compete with the load generator.
   */
  serverCpu: number | undefined;
  loadCpu: number | undefined;
  onServerCpu: { cpu?: number };
  /** The work directory, removed at the end unless --keep. */
  work: string;
  dataDir: string;
  /** nginx's document root, holding nerkh's own bytes. */
  root: string;
  bodyFile: string;
  keysFile: string;
  /** Where each profiled nerkh writes its `.cpuprofile`: in memory, and with its limits in Redis. */
  profileDirs: { readonly nerkh: string; readonly nerkhRedis: string };
  /** Start of every Redis key the peers write: unique to this run, so the bench deletes only its own. */
  peerPrefix: string;
  /** Ids of every key the bench issued that a Redis-backed nerkh may have counted. */
  redisKeyIds: string[];
  /** The Redis the Redis parts use: --redis-url, or the bench's own server once it runs. */
  redisUrl: string;
  benchRedis: Redis | null;
  /** The bench's own Redis (without --redis-url), pinned with the load generator. */
  ownRedis: BenchRedisServer | null;
  servers: Partial<Record<ServerName, StaticServer | NerkhProcess>>;
}

/** A run with its work directory made and nothing started yet. */
export function newRun(options: BenchOptions): BenchRun {
  const pinned = availableParallelism() >= 2;
  const serverCpu = pinned ? 0 : undefined;
  const work = mkdtempSync(join(tmpdir(), 'nerkh-bench-http-'));
  const root = join(work, 'www');
  return {
    options,
    serverCpu,
    loadCpu: pinned ? 1 : undefined,
    onServerCpu: serverCpu === undefined ? {} : { cpu: serverCpu },
    work,
    dataDir: join(work, 'data'),
    root,
    bodyFile: join(root, 'v1', 'rates'),
    keysFile: join(work, 'keys.txt'),
    profileDirs: { nerkh: join(work, 'profile'), nerkhRedis: join(work, 'profile-redis') },
    peerPrefix: `nerkh-bench:${randomBytes(6).toString('hex')}:`,
    redisKeyIds: [],
    redisUrl: options.redisUrl,
    benchRedis: null,
    ownRedis: null,
    servers: {},
  };
}

export async function stopServer(run: BenchRun, server: ServerName): Promise<void> {
  const running = run.servers[server];
  delete run.servers[server];
  await running?.stop();
}

/**
 * Stops every server and the bench's own Redis, also after a failed run; in a given Redis, deletes
 * the keys the bench wrote there, and only those.
 */
export async function stopEverything(run: BenchRun): Promise<void> {
  for (const server of serverNames) await stopServer(run, server).catch(() => undefined);
  if (run.benchRedis !== null && run.ownRedis === null) {
    try {
      const deleted = await deleteBenchKeys(run.benchRedis, run.redisKeyIds, run.peerPrefix);
      console.log(`Redis: deleted the ${integer(deleted)} keys the bench wrote`);
    } catch (error) {
      console.log(
        `Redis: could not delete the bench's keys (${(error as Error).message}); they expire within a minute`,
      );
    }
  }
  run.benchRedis?.disconnect();
  await run.ownRedis?.stop();
}

/** Removes the work directory, or with --keep says where it is. */
export function removeWork(run: BenchRun): void {
  if (run.options.keep) console.log(`kept ${run.work}`);
  else rmSync(run.work, { recursive: true, force: true });
}
