/**
 * Runs the tasks deferred during one turn of the event loop together, in the turn's check phase
 * (`setImmediate`), right after the poll phase that read their requests: under load, every socket
 * that was readable is read and parsed first, then every answer is written. The rates fast path
 * writes its admitted answers so (./fast-path.ts): with the same system calls in as many turns,
 * the client's CPU is woken once per burst of answers, and the parser's and the send path's code
 * each run in a row (docs/decisions/0005-one-turns-answers-written-together.md). An answer waits
 * at most for the rest of the turn it was read in.
 */
export class TurnBatch {
  #tasks: (() => void)[] = [];
  readonly #onError: (error: unknown) => void;

  /** `onError` hears of a task that threw; the tasks after it still run. */
  constructor(onError: (error: unknown) => void) {
    this.#onError = onError;
  }

  defer(task: () => void): void {
    if (this.#tasks.length === 0) setImmediate(this.#run);
    this.#tasks.push(task);
  }

  readonly #run = (): void => {
    const tasks = this.#tasks;
    // A task that defers another (none does today) starts the next batch.
    this.#tasks = [];
    for (const task of tasks) {
      try {
        task();
      } catch (error) {
        this.#onError(error);
      }
    }
  };
}
