import type { RateLimitDecision } from '../types.ts';

/**
 * Sends one batch to Redis: the keys of its decisions and the script's arguments (the window,
 * then one per decision, ./sliding-log-script.ts); answers three integers per decision.
 */
export type SendBatch = (keys: string[], args: Array<string | number>) => Promise<number[]>;

/**
 * Gets one decision's outcome, once: the decision, or null with the error that failed its batch.
 * A callback rather than a promise per decision: the caller wraps the outcome in the one promise
 * it answers with (FallbackRateLimiter), so a request with a shared limit costs one promise, not a
 * chain of them (docs/decisions/0015-one-promise-per-shared-decision.md). It must not throw: the
 * rest of its batch is answered after it.
 */
export type DecisionCallback = (decision: RateLimitDecision | null, error?: unknown) => void;

/**
 * Decisions one script call carries. A batch is sent as soon as it holds this many, in the middle
 * of the turn that asked for them, and what is left at the end of the turn goes then. Sent once a
 * turn, every request read in a turn waited for Redis to decide them all while this process had
 * nothing else to do, and Redis waited meanwhile for the next turn's batch: under load the two
 * took turns instead of working side by side, and the process idled part of the time. Sixteen at a
 * time, Redis decides a turn's first requests while the process reads the rest. Fewer cost more
 * per decision (each call has its own EVALSHA, TIME and reply), more leave the process waiting
 * again (docs/decisions/0014-redis-decisions-in-calls-of-16.md).
 */
export const batchDecisions = 16;

/**
 * Gathers the decisions asked for in one event-loop turn and sends them in script calls of
 * `batchDecisions`, each as soon as it is full and the rest once the turn's I/O callbacks have run
 * (setImmediate): the requests read in one turn cost Redis an EVALSHA, a TIME and a reply per 16
 * of them, and this process a command per 16, instead of one of each per request. Each decision
 * still gets its own answer, as exact as if it had been sent alone (the script decides them one
 * after the other, atomically). A batch that fails (an error, a timeout, a dropped connection)
 * fails every decision in it with that error, as a failed command of one decision would, so each
 * falls back to memory the same way.
 */
export class DecisionBatch {
  readonly #send: SendBatch;
  readonly #windowArg: string;
  #keys: string[] = [];
  #args: Array<string | number>;
  #limits: number[] = [];
  #callbacks: DecisionCallback[] = [];
  #scheduled = false;
  readonly #flushScheduled = () => {
    this.#scheduled = false;
    this.#flush();
  };

  constructor(send: SendBatch, windowMs: number) {
    this.#send = send;
    this.#windowArg = String(windowMs);
    this.#args = [this.#windowArg];
  }

  /** One decision on `key` (the full Redis key), answered with the rest of its batch. */
  decide(
    key: string,
    limit: number,
    admit: '1' | '0',
    callerTime: number | '',
    done: DecisionCallback,
  ): void {
    this.#keys.push(key);
    // A take on Redis's clock, what every API request asks, is its limit alone.
    this.#args.push(admit === '1' && callerTime === '' ? limit : `${limit},${admit},${callerTime}`);
    this.#limits.push(limit);
    this.#callbacks.push(done);
    if (this.#keys.length >= batchDecisions) this.#flush();
    else if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(this.#flushScheduled);
    }
  }

  #flush(): void {
    if (this.#keys.length === 0) return;
    const limits = this.#limits;
    const callbacks = this.#callbacks;
    const sent = this.#send(this.#keys, this.#args);
    this.#keys = [];
    this.#args = [this.#windowArg];
    this.#limits = [];
    this.#callbacks = [];
    sent.then(
      (replies) => {
        for (let i = 0; i < limits.length; i++) {
          const allowed = replies[3 * i] === 1;
          const resetSeconds = replies[3 * i + 2] as number;
          (callbacks[i] as DecisionCallback)({
            allowed,
            limit: limits[i] as number,
            remaining: replies[3 * i + 1] as number,
            resetSeconds,
            retryAfterSeconds: allowed ? 0 : resetSeconds,
          });
        }
      },
      (error: unknown) => {
        for (const done of callbacks) done(null, error);
      },
    );
  }
}
