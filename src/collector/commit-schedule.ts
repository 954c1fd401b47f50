import type { Snapshot } from '../domain/rates.ts';
import type { CollectorTimers } from './timers.ts';

interface CommitScheduleOptions {
  timers: CollectorTimers;
  /** Epoch milliseconds. */
  clock: () => number;
  /** The first commit waits at most this long after start for every price to arrive. */
  graceMs: number;
  /** Interval between commits from the first one on. */
  refreshMs: number;
  /** Commits one snapshot; resolves to null when there was nothing to commit or the store failed. */
  commit: () => Promise<Snapshot | null>;
}

/**
 * When snapshots are committed: the first as soon as every price has arrived (`allQuoted`), or
 * with whatever has when the grace period after start ends; then at a fixed cadence from the
 * first commit, so slow commits do not drift it.
 */
export class CommitSchedule {
  readonly #timers: CollectorTimers;
  readonly #clock: () => number;
  readonly #graceMs: number;
  readonly #refreshMs: number;
  readonly #commit: () => Promise<Snapshot | null>;
  #running = false;
  /** The first commit is scheduled, running or done; from then on the cadence runs. */
  #firstQueued = false;
  #timer: unknown = null;
  #nextCommitAt = 0;

  constructor(options: CommitScheduleOptions) {
    this.#timers = options.timers;
    this.#clock = options.clock;
    this.#graceMs = options.graceMs;
    this.#refreshMs = options.refreshMs;
    this.#commit = options.commit;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#scheduleGraceCheck();
  }

  /** Clears the timer; a commit in flight finishes, and none follows it. */
  stop(): void {
    this.#running = false;
    if (this.#timer !== null) this.#timers.clearTimeout(this.#timer);
    this.#timer = null;
  }

  /** Every price has arrived: the first commit need not wait for the grace period to end. */
  allQuoted(): void {
    if (!this.#running || this.#firstQueued) return;
    this.#firstQueued = true;
    if (this.#timer !== null) this.#timers.clearTimeout(this.#timer);
    // Out of the feed's callback: the rest of the frame batch lands first.
    this.#timer = this.#timers.setTimeout(() => {
      this.#timer = null;
      void this.#firstCommit();
    }, 0);
  }

  #scheduleGraceCheck(): void {
    this.#timer = this.#timers.setTimeout(() => {
      this.#timer = null;
      if (!this.#running || this.#firstQueued) return;
      this.#firstQueued = true;
      void this.#firstCommit();
    }, this.#graceMs);
  }

  async #firstCommit(): Promise<void> {
    const snapshot = await this.#commit();
    if (!this.#running) return;
    if (snapshot === null) {
      // Nothing arrived yet (or the store failed): look again after another grace period.
      this.#firstQueued = false;
      this.#scheduleGraceCheck();
      return;
    }
    this.#nextCommitAt = this.#clock() + this.#refreshMs;
    this.#scheduleNextCommit();
  }

  #scheduleNextCommit(): void {
    const delay = Math.max(0, this.#nextCommitAt - this.#clock());
    this.#timer = this.#timers.setTimeout(() => {
      this.#timer = null;
      if (!this.#running) return;
      this.#nextCommitAt += this.#refreshMs;
      const now = this.#clock();
      if (this.#nextCommitAt <= now) this.#nextCommitAt = now + this.#refreshMs;
      void this.#commit().finally(() => {
        if (this.#running && this.#timer === null) this.#scheduleNextCommit();
      });
    }, delay);
  }
}
