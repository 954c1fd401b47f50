import { Agent, request } from 'node:http';

/** Status code (or `error:<code>` for a request that got no answer) → count. */
export type Tally = Record<string, number>;

export interface PhaseResult {
  phase: string;
  tally: Tally;
  /** Milliseconds, every request of the phase. */
  latencies: number[];
}

export interface LoadOptions {
  /** Base URL of nerkh. */
  url: string;
  /** Default `/v1/rates`. */
  path?: string;
  /** The key each request sends (called per request, so clients can rotate keys). */
  key: () => string;
  /** Requests in flight at once (one loop each). */
  concurrency: number;
  /** Pause of each loop between its requests (default 0). */
  pauseMs?: number;
  /** Default: one keep-alive connection per loop; false = a new connection per request. */
  keepAlive?: boolean;
}

/**
 * Clients requesting nerkh without pause, their answers counted per phase (`phase('during')`), so
 * a drill can print what clients got before, during and after a fault.
 */
export class Load {
  readonly #options: LoadOptions;
  readonly #agent: Agent;
  readonly #phases: PhaseResult[] = [];
  #current: PhaseResult;
  #running = false;
  #loops: Promise<void>[] = [];

  constructor(options: LoadOptions, firstPhase = 'before') {
    this.#options = options;
    this.#agent = new Agent({ keepAlive: options.keepAlive ?? true, maxSockets: options.concurrency });
    this.#current = { phase: firstPhase, tally: {}, latencies: [] };
    this.#phases.push(this.#current);
  }

  start(): this {
    this.#running = true;
    this.#loops = Array.from({ length: this.#options.concurrency }, () => this.#loop());
    return this;
  }

  /** Counts from now on go to a new phase. */
  phase(name: string): void {
    this.#current = { phase: name, tally: {}, latencies: [] };
    this.#phases.push(this.#current);
  }

  /** The phase being counted now (live numbers for progress output). */
  get current(): PhaseResult {
    return this.#current;
  }

  async stop(): Promise<PhaseResult[]> {
    this.#running = false;
    await Promise.all(this.#loops);
    this.#agent.destroy();
    return this.#phases;
  }

  async #loop(): Promise<void> {
    const { pauseMs = 0 } = this.#options;
    while (this.#running) {
      const phase = this.#current;
      const started = performance.now();
      const outcome = await this.#one();
      phase.tally[outcome] = (phase.tally[outcome] ?? 0) + 1;
      phase.latencies.push(performance.now() - started);
      if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }

  #one(): Promise<string> {
    const { url, path = '/v1/rates', key, keepAlive = true } = this.#options;
    return new Promise((resolve) => {
      const req = request(
        `${url}${path}`,
        { headers: { 'X-API-Key': key() }, agent: keepAlive ? this.#agent : false, timeout: 10_000 },
        (res) => {
          res.resume();
          res.once('end', () => resolve(String(res.statusCode)));
          res.once('error', (error: NodeJS.ErrnoException) =>
            resolve(`error:${error.code ?? error.message}`),
          );
        },
      );
      req.once('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
      req.once('error', (error: NodeJS.ErrnoException) => resolve(`error:${error.code ?? error.message}`));
      req.end();
    });
  }
}

/** The p-th percentile (0–100) of the values, nearest rank; NaN for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

/** Requests of the tally whose status is not in `accepted` (errors included). */
export function countOutside(tally: Tally, accepted: readonly string[]): number {
  return Object.entries(tally)
    .filter(([status]) => !accepted.includes(status))
    .reduce((sum, [, count]) => sum + count, 0);
}

/** `before  {"200":1234}  p50 2.1 ms  p99 9.8 ms` */
export function phaseLine(result: PhaseResult): string {
  const p = (q: number) => percentile(result.latencies, q).toFixed(1);
  return `${result.phase.padEnd(8)} ${JSON.stringify(result.tally)}  p50 ${p(50)} ms  p99 ${p(99)} ms`;
}
