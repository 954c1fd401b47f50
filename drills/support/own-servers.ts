import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './nerkh-process.ts';
import type { Teardown } from './rig.ts';

/**
 * PostgreSQL and Redis servers of a drill's own, on free ports, which it may stop and start as it
 * likes: the machine's shared servers are never restarted (other suites use them).
 */

const redisServerPath = '/usr/bin/redis-server';

function postgresBin(): string | null {
  const versions = existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql').sort() : [];
  const version = versions.at(-1);
  return version === undefined ? null : `/usr/lib/postgresql/${version}/bin`;
}

/** Why the drill cannot start servers of its own, or null when it can. */
export function ownServersMissing(): string | null {
  const bin = postgresBin();
  if (bin === null || !existsSync(join(bin, 'initdb')))
    return 'no PostgreSQL server binaries in /usr/lib/postgresql';
  if (!existsSync(redisServerPath)) return `${redisServerPath} is not installed`;
  return null;
}

/** initdb and postgres refuse to run as root: as root, run them as the `postgres` user. */
function asServerUser(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

function run(command: string, args: string[]): Promise<void> {
  const [file, argv] = asServerUser(command, args);
  return new Promise((resolve, reject) => {
    execFile(file, argv, (error, _stdout, stderr) =>
      error ? reject(new Error(`${command} ${args[0]}: ${error.message} ${stderr}`)) : resolve(),
    );
  });
}

/** A PostgreSQL cluster in a temporary directory, trust authentication, user `postgres`. */
export class OwnPostgres {
  readonly #bin: string;
  readonly #dir: string;

  private constructor(
    readonly port: number,
    readonly url: string,
    bin: string,
    dir: string,
  ) {
    this.#bin = bin;
    this.#dir = dir;
  }

  static async start(teardown: Teardown): Promise<OwnPostgres> {
    const bin = postgresBin();
    if (bin === null) throw new Error('no PostgreSQL server binaries');
    const dir = mkdtempSync(join(tmpdir(), 'nerkh-drill-pg-'));
    teardown(() => rmSync(dir, { recursive: true, force: true }));
    if (process.getuid?.() === 0) {
      const { uid, gid } = await userIds('postgres');
      chownSync(dir, uid, gid);
    }
    await run(join(bin, 'initdb'), ['-D', join(dir, 'data'), '-U', 'postgres', '--auth=trust', '--no-sync']);
    const port = await freePort();
    const server = new OwnPostgres(port, `postgres://postgres@127.0.0.1:${port}/postgres`, bin, dir);
    teardown(() => server.stop().catch(() => {}));
    await server.begin();
    return server;
  }

  /** Starts the cluster and waits until it accepts connections. */
  begin(): Promise<void> {
    return run(join(this.#bin, 'pg_ctl'), [
      'start',
      '--wait',
      '--silent',
      '-D',
      join(this.#dir, 'data'),
      '-l',
      join(this.#dir, 'log'),
      '-o',
      // fsync off: the drill's data need not survive the machine, and its commits are faster.
      `-p ${this.port} -k ${this.#dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`,
    ]);
  }

  /** A fast shutdown: open sessions are ended, as when the server is restarted for maintenance. */
  stop(): Promise<void> {
    return run(join(this.#bin, 'pg_ctl'), [
      'stop',
      '--wait',
      '--silent',
      '-m',
      'fast',
      '-D',
      join(this.#dir, 'data'),
    ]);
  }
}

async function userIds(user: string): Promise<{ uid: number; gid: number }> {
  const id = (flag: string) =>
    new Promise<number>((resolve, reject) =>
      execFile('id', [flag, user], (error, stdout) =>
        error ? reject(error) : resolve(Number(stdout.trim())),
      ),
    );
  return { uid: await id('-u'), gid: await id('-g') };
}

/** A Redis server on a free port, keeping nothing on disk (as nerkh's limiter needs). */
export class OwnRedis {
  #child: ChildProcess | null = null;

  private constructor(
    readonly port: number,
    readonly url: string,
  ) {}

  static async start(teardown: Teardown): Promise<OwnRedis> {
    const port = await freePort();
    const server = new OwnRedis(port, `redis://127.0.0.1:${port}`);
    teardown(() => server.stop());
    await server.begin();
    return server;
  }

  /** Starts the server and waits until it answers PING. */
  async begin(): Promise<void> {
    const child = spawn(
      redisServerPath,
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    this.#child = child;
    const deadline = Date.now() + 10_000;
    for (;;) {
      const client = new Redis(this.url, {
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
      });
      client.on('error', () => {});
      const answered = await client
        .connect()
        .then(() => client.ping())
        .then(
          () => true,
          () => false,
        );
      client.disconnect();
      if (answered) return;
      if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
      if (Date.now() > deadline) throw new Error('redis-server did not answer within 10 s');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** SIGTERM, as a service manager stops it, and waits for the exit. */
  async stop(): Promise<void> {
    const child = this.#child;
    if (child === null || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}
