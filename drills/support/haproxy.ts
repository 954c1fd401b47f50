import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../src/project-root.ts';
import type { Teardown } from './rig.ts';

/** Debian's HAProxy (`apt-get install haproxy`). */
export const haproxyPath = '/usr/sbin/haproxy';

/** The compose stack's balancer configuration, whose options the drills run. */
export const opsHaproxyConfig = join(projectRoot, 'ops', 'compose', 'haproxy', 'haproxy.cfg');

/** Why HAProxy cannot be run here, or null when it can. */
export function haproxyMissing(): string | null {
  return existsSync(haproxyPath) ? null : `${haproxyPath} is not installed (apt-get install haproxy)`;
}

/** One API process behind the balancer: its public port and its operations (readiness) port. */
export interface BackendServer {
  name: string;
  port: number;
  opsPort: number;
}

export interface RenderOptions {
  publicPort: number;
  healthPort: number;
  servers: readonly BackendServer[];
  /** Path of HAProxy's runtime API socket (`show stat`), for the drill's own view. */
  statsSocket: string;
}

/**
 * ops/compose/haproxy/haproxy.cfg as it is, with only what differs outside compose replaced: the
 * listeners bound to local ports, and the API instances named as static servers on local ports
 * instead of found by DNS (each with its own check port; the file's `default-server` line, its
 * checks, retries and redispatch, stays as written). Fails when a line it replaces is missing, so
 * the file and the drills cannot drift apart unseen.
 */
export function renderHaproxyConfig(source: string, options: RenderOptions): string {
  const replacements: Array<[RegExp, string]> = [
    [/^(\s*)hard-stop-after .*$/m, `$&\n$1stats socket ${options.statsSocket} mode 600 level admin`],
    [/^(\s*)bind :8080$/m, `$1bind 127.0.0.1:${options.publicPort}`],
    [/^(\s*)bind 127\.0\.0\.1:8404$/m, `$1bind 127.0.0.1:${options.healthPort}`],
    [
      /^(\s*)server-template .*$/m,
      options.servers
        .map(
          (server) =>
            `$1server ${server.name} 127.0.0.1:${server.port} port ${server.opsPort} init-addr libc`,
        )
        .join('\n'),
    ],
  ];
  let config = source;
  for (const [pattern, replacement] of replacements) {
    if (!pattern.test(config)) throw new Error(`${opsHaproxyConfig} has no line matching ${pattern}`);
    config = config.replace(pattern, replacement);
  }
  return config;
}

/** A server's row of HAProxy's `show stat`. */
export interface ServerStat {
  name: string;
  /** UP, DOWN, MAINT, `UP 1/2` (going down), `DOWN 1/2` (coming up)… */
  status: string;
}

/** The backend's counters from `show stat`: requests HAProxy sent again, and where. */
export interface BackendStat {
  /** Requests sent again after a failed attempt (`wretr`, connection retries included). */
  retries: number;
  /** Requests sent again to another server (`wredis`). */
  redispatches: number;
  /** Answers with a 5xx status, HAProxy's own (no server up) included (`hrsp_5xx`). */
  responses5xx: number;
}

/**
 * HAProxy in front of the drill's API processes, run as a child process with the ops file's
 * options (`-db`: in the foreground, logging to stdout, which is counted, not kept).
 */
export class HaproxyProcess {
  readonly #child: ChildProcess;
  readonly #exited: Promise<number | null>;
  readonly #socket: string;
  #stderr = '';

  private constructor(
    child: ChildProcess,
    socket: string,
    readonly url: string,
    readonly healthUrl: string,
  ) {
    this.#child = child;
    this.#socket = socket;
    this.#exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    child.stdout?.resume();
    child.stderr?.on('data', (chunk: Buffer) => {
      this.#stderr += chunk.toString();
    });
  }

  static async start(
    servers: readonly BackendServer[],
    ports: { publicPort: number; healthPort: number },
    teardown: Teardown,
  ): Promise<HaproxyProcess> {
    const missing = haproxyMissing();
    if (missing !== null) throw new Error(missing);
    const dir = mkdtempSync(join(tmpdir(), 'nerkh-haproxy-'));
    teardown(() => rmSync(dir, { recursive: true, force: true }));
    const statsSocket = join(dir, 'admin.sock');
    const configPath = join(dir, 'haproxy.cfg');
    writeFileSync(
      configPath,
      renderHaproxyConfig(readFileSync(opsHaproxyConfig, 'utf8'), { ...ports, servers, statsSocket }),
    );
    // Checked first, so a bad configuration fails with HAProxy's own words.
    execFileSync(haproxyPath, ['-c', '-q', '-f', configPath], { stdio: ['ignore', 'ignore', 'pipe'] });
    const child = spawn(haproxyPath, ['-db', '-f', configPath], { stdio: ['ignore', 'pipe', 'pipe'] });
    const haproxy = new HaproxyProcess(
      child,
      statsSocket,
      `http://127.0.0.1:${ports.publicPort}`,
      `http://127.0.0.1:${ports.healthPort}`,
    );
    teardown(() => haproxy.stop());
    const deadline = Date.now() + 10_000;
    while (!existsSync(statsSocket)) {
      if (haproxy.#child.exitCode !== null) throw new Error(`haproxy exited: ${haproxy.#stderr.trim()}`);
      if (Date.now() > deadline) throw new Error(`haproxy did not start: ${haproxy.#stderr.trim()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return haproxy;
  }

  /** A command on the runtime API socket, its answer. */
  #command(command: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connect(this.#socket);
      let answer = '';
      socket.setEncoding('utf8');
      socket.once('connect', () => socket.end(`${command}\n`));
      socket.on('data', (chunk: string) => {
        answer += chunk;
      });
      socket.once('end', () => resolve(answer));
      socket.once('error', reject);
    });
  }

  async #stat(): Promise<Array<Record<string, string>>> {
    const [header, ...rows] = (await this.#command('show stat')).trim().split('\n');
    const names = (header ?? '').replace(/^# /, '').split(',');
    return rows.map((row) => Object.fromEntries(row.split(',').map((value, i) => [names[i] ?? '', value])));
  }

  /** The API servers' states as HAProxy sees them now. */
  async servers(): Promise<ServerStat[]> {
    return (await this.#stat())
      .filter((row) => row.pxname === 'api' && row.svname !== 'BACKEND' && row.svname !== 'FRONTEND')
      .map((row) => ({ name: row.svname ?? '', status: row.status ?? '' }));
  }

  async backend(): Promise<BackendStat> {
    const row = (await this.#stat()).find(
      (candidate) => candidate.pxname === 'api' && candidate.svname === 'BACKEND',
    );
    return {
      retries: Number(row?.wretr ?? 0),
      redispatches: Number(row?.wredis ?? 0),
      responses5xx: Number(row?.hrsp_5xx ?? 0),
    };
  }

  /** The number of API instances HAProxy sends requests to, from the health frontend's `/servers`. */
  async usableServers(): Promise<number> {
    return Number(await (await fetch(`${this.healthUrl}/servers`)).text());
  }

  async stop(): Promise<void> {
    if (this.#child.exitCode === null && this.#child.signalCode === null) this.#child.kill('SIGTERM');
    await this.#exited;
  }
}
