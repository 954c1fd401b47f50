import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import { errorClassOf } from '../collector/collector.ts';

/** A probe's answer: 200 when `ok`, 503 otherwise, with a one-line reason. */
export interface ProbeResult {
  ok: boolean;
  reason: string;
}

interface ProbeOptions {
  /**
   * Resolves when the store answers a query (the id of its latest snapshot); rejects when it fails.
   * Asked only where no API runs (see `Probes`).
   */
  storeAnswers(): Promise<unknown>;
  /** The longest the store may take to answer before the process is not ready (default 2 s). */
  storeTimeoutMs?: number;
  /** The longest the event loop may have been held at a time for the process to be live (default 2 s). */
  maxLoopDelayMs?: number;
  /** How long a held event loop is remembered: between one and two of these (default 10 s). */
  loopWindowMs?: number;
}

/**
 * The orchestrators' probes, served on the operations listener (metrics-server.ts), never on the
 * public port (docs/operations.md#probes).
 *
 * Live: the event loop runs, and has not been held longer than the bound in the last window or
 * two. A process whose loop is stuck never answers at all, which the orchestrator counts as a
 * failure too; one that was stuck a while ago answers 503 until the window has passed, so a lone
 * pause fails at most two probes ten seconds apart and a restart needs it to last.
 *
 * Ready: an API process has a snapshot to serve and is not draining (stopping). Nothing else:
 * an API whose store does not answer still serves the snapshot it holds and the keys it has seen
 * (`/v1/health` warns), and every instance shares the store, so taking them out of the balancer
 * for it would turn a store outage into a 503 for every client. Stale data is ready too: clients
 * judge each row by its `as_of`, and taking every instance out during a source outage would only
 * take away the last prices (`/v1/health` says stale). A process without an API (the collector
 * role), which serves no one, is ready when its store answers.
 */
export class Probes {
  readonly #storeAnswers: () => Promise<unknown>;
  readonly #storeTimeoutMs: number;
  readonly #maxLoopDelayMs: number;
  readonly #delays: IntervalHistogram;
  readonly #rotation: NodeJS.Timeout;
  /** The longest hold of the event loop in the previous window, in milliseconds. */
  #previousWindowMaxMs = 0;
  #snapshotLoaded: (() => boolean) | null = null;
  /** The store check under way: concurrent probes share it instead of each querying the store. */
  #storeCheck: Promise<ProbeResult> | null = null;
  #draining = false;

  constructor(options: ProbeOptions) {
    this.#storeAnswers = options.storeAnswers;
    this.#storeTimeoutMs = options.storeTimeoutMs ?? 2000;
    this.#maxLoopDelayMs = options.maxLoopDelayMs ?? 2000;
    // Node's own measure of how late the event loop runs a timer (libuv), sampled every 20 ms.
    this.#delays = monitorEventLoopDelay({ resolution: 20 });
    this.#delays.enable();
    this.#rotation = setInterval(() => {
      this.#previousWindowMaxMs = this.#currentWindowMaxMs();
      this.#delays.reset();
    }, options.loopWindowMs ?? 10_000);
    this.#rotation.unref();
  }

  /** The API's snapshot: while it has none, the process is not ready. */
  watchSnapshot(current: () => unknown): void {
    this.#snapshotLoaded = () => current() !== null;
  }

  live(): ProbeResult {
    const heldMs = Math.max(this.#previousWindowMaxMs, this.#currentWindowMaxMs());
    if (heldMs > this.#maxLoopDelayMs) {
      return {
        ok: false,
        reason: `the event loop was held ${Math.round(heldMs)} ms at a time (bound ${this.#maxLoopDelayMs} ms)`,
      };
    }
    return { ok: true, reason: 'live' };
  }

  /** From now on not ready: the process is stopping, and the balancer is to send its traffic elsewhere. */
  drain(): void {
    this.#draining = true;
  }

  async ready(): Promise<ProbeResult> {
    if (this.#draining) return { ok: false, reason: 'draining: the process is stopping' };
    if (this.#snapshotLoaded !== null) {
      return this.#snapshotLoaded()
        ? { ok: true, reason: 'ready' }
        : { ok: false, reason: 'no snapshot loaded yet' };
    }
    this.#storeCheck ??= this.#checkStore().finally(() => {
      this.#storeCheck = null;
    });
    return this.#storeCheck;
  }

  stop(): void {
    clearInterval(this.#rotation);
    this.#delays.disable();
  }

  #currentWindowMaxMs(): number {
    // Before its first sample the histogram's max is 0; it is in nanoseconds, the timer's own
    // resolution included.
    return this.#delays.max / 1e6;
  }

  async #checkStore(): Promise<ProbeResult> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<ProbeResult>((resolve) => {
      timer = setTimeout(
        () => resolve({ ok: false, reason: `the store did not answer within ${this.#storeTimeoutMs} ms` }),
        this.#storeTimeoutMs,
      );
    });
    const answer = Promise.resolve()
      .then(() => this.#storeAnswers())
      .then(
        (): ProbeResult => ({ ok: true, reason: 'ready' }),
        // The class and code only, as /v1/health reports a failed commit: a driver's message may
        // quote a connection string or a path.
        (error: unknown): ProbeResult => ({ ok: false, reason: `the store failed: ${errorClassOf(error)}` }),
      );
    try {
      return await Promise.race([answer, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}
