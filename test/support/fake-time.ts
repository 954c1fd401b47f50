import type { CollectorTimers } from '../../src/collector/timers.ts';

interface Pending {
  at: number;
  seq: number;
  callback: () => void;
}

/**
 * A clock and timers the test drives by hand: `advance` runs due callbacks in time order and lets
 * the promises they start settle before moving on, so scheduled commits complete in fake time.
 */
export class FakeTime implements CollectorTimers {
  #pending = new Map<number, Pending>();
  #seq = 0;

  constructor(public now: number) {}

  readonly clock = (): number => this.now;

  setTimeout(callback: () => void, ms: number): unknown {
    const seq = ++this.#seq;
    this.#pending.set(seq, { at: this.now + Math.max(0, ms), seq, callback });
    return seq;
  }

  clearTimeout(handle: unknown): void {
    this.#pending.delete(handle as number);
  }

  get pendingTimers(): number {
    return this.#pending.size;
  }

  async advance(ms: number): Promise<void> {
    const end = this.now + ms;
    await settle();
    for (;;) {
      let next: Pending | undefined;
      for (const timer of this.#pending.values()) {
        if (
          timer.at <= end &&
          (!next || timer.at < next.at || (timer.at === next.at && timer.seq < next.seq))
        ) {
          next = timer;
        }
      }
      if (!next) break;
      this.#pending.delete(next.seq);
      this.now = next.at;
      next.callback();
      await settle();
    }
    this.now = end;
  }
}

/** Lets every queued promise continuation run (the in-memory store resolves immediately). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}
