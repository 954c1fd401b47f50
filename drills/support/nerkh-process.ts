import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

/** The installed bin, run exactly as an operator runs it (its node flags included). */
const binPath = fileURLToPath(new URL('../../bin/nerkh.js', import.meta.url));

export type Role = 'all' | 'api' | 'collector';

export interface ServeOptions {
  role: Role;
  /** The settings, as an operator sets them: only documented environment variables. */
  env: Record<string, string>;
  /** Default: a free port. */
  port?: number;
}

/** A port that was free a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/**
 * A `nerkh serve` process: its base URL, its log lines (the access log left out, so a long drill
 * does not keep millions of lines), and what /proc says about it.
 */
export class NerkhProcess {
  readonly events: string[] = [];
  readonly #child: ChildProcess;
  readonly #exited: Promise<number | null>;
  #stderr = '';

  private constructor(
    child: ChildProcess,
    readonly url: string,
  ) {
    this.#child = child;
    this.#exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    let pending = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      const lines = (pending + chunk.toString()).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (!line.includes('"request completed"')) this.events.push(line);
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      this.#stderr += chunk.toString();
    });
  }

  static async start(options: ServeOptions): Promise<NerkhProcess> {
    const env: NodeJS.ProcessEnv = {};
    for (const [name, value] of Object.entries(process.env)) {
      if (name.startsWith('NERKH_') || name === 'NODE_OPTIONS' || name === 'LOG_LEVEL') continue;
      env[name] = value;
    }
    const port = options.port ?? (await freePort());
    // No drain by default: a drill that stops an instance to restart it, or at its end, gains nothing
    // from the 10 s a balancer needs (the balancer drill sets its own).
    Object.assign(
      env,
      { HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'info', NERKH_DRAIN_SECONDS: '0' },
      options.env,
    );
    const child = spawn(binPath, ['serve', '--role', options.role], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const nerkh = new NerkhProcess(child, `http://127.0.0.1:${port}`);
    await nerkh.waitForEvent(/nerkh is running/, 60_000, 'nerkh to start');
    return nerkh;
  }

  get pid(): number {
    return this.#child.pid ?? 0;
  }

  /** True while the process runs. */
  get alive(): boolean {
    return this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** What it wrote to stderr (a crash's stack trace). */
  get stderr(): string {
    return this.#stderr;
  }

  /** Resident set now, KiB (VmRSS). */
  rssKiB(): number {
    return statusField(this.pid, 'VmRSS');
  }

  /** Open file descriptors now (sockets, files, pipes). */
  openDescriptors(): number {
    return readdirSync(`/proc/${this.pid}/fd`).length;
  }

  /** Resolves with the first log line matching `pattern` (already written or to come). */
  async waitForEvent(pattern: RegExp, timeoutMs: number, what: string): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const line = this.events.find((candidate) => pattern.test(candidate));
      if (line !== undefined) return line;
      if (!this.alive) throw new Error(`nerkh exited before ${what}: ${this.#stderr.trim()}`);
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** `kill -9`: the process ends at once, cleaning nothing up (a crash, a machine lost). */
  async kill(): Promise<void> {
    if (this.alive) this.#child.kill('SIGKILL');
    await this.#exited;
  }

  /** SIGTERM and the exit code (0 = a clean stop). A process already gone gives its code. */
  async stop(): Promise<number | null> {
    if (this.alive) this.#child.kill('SIGTERM');
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), 20_000);
    const code = await this.#exited;
    clearTimeout(timer);
    return code;
  }
}

function statusField(pid: number, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(match[1]);
}
