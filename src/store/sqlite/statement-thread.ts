import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { projectRoot } from '../../project-root.ts';
import { connectionPragmas } from './database.ts';

/** The thread's script: plain JavaScript beside this file, found from the project folder in every mode. */
const threadScript = join(projectRoot, 'src', 'store', 'sqlite', 'statement-thread.cjs');
/** The same better-sqlite3 the main thread loaded, so the process holds one copy of SQLite (see below). */
const driver = fileURLToPath(import.meta.resolve('better-sqlite3'));
/**
 * The thread's page cache, in KiB. better-sqlite3 builds SQLite with 16,000 KiB per connection
 * (`SQLITE_DEFAULT_CACHE_SIZE` in its deps/defines.gypi), which this connection, which only writes,
 * filled with its batches' pages; a smaller one writes a batch as fast
 * (docs/decisions/0032-sqlite-page-caches.md).
 */
const cacheKiB = 1024;

type Row = readonly (string | number | null)[];

/** One batch: the rows of each statement, in the statements' order. */
type Batch = readonly (readonly Row[])[];

/** What the thread answers: a batch's outcome, or why it could not start. */
type Outcome = { id: number; error?: string } | { fatal: string };

interface Waiting {
  resolve(): void;
  reject(error: Error): void;
}

/** A started thread and the batches it has not answered yet. */
interface Thread {
  worker: Worker;
  waiting: Map<number, Waiting>;
}

/**
 * Runs write statements over batches of rows, each batch in one transaction (each statement over
 * its own rows, in order), on a thread of its
 * own with its own connection to the database file. better-sqlite3 works synchronously, so on the
 * event loop every such write holds every request in flight until the disk has it, and a slow disk
 * holds them long (docs/decisions/0030-last-use-writes-on-a-thread.md). Here the event loop only
 * hands the rows over.
 *
 * The thread loads the very better-sqlite3 the main thread runs, and a native module is loaded once
 * per process, so both connections use one copy of SQLite: two copies in one process would not
 * see each other's POSIX locks (https://www.sqlite.org/howtocorrupt.html, section 2.2.1). WAL
 * lets this connection write while the main one reads, and busy_timeout lets it wait for another
 * writer: it is set up as the main connection is (connectionPragmas in database.ts).
 *
 * The thread starts at the first batch (a process that never writes never pays for it), keeps
 * the process alive only while a batch is under way, and is started again after a crash.
 */
export class SqliteStatementThread {
  readonly #file: string;
  readonly #statements: readonly string[];
  #thread: Thread | undefined;
  #nextId = 0;

  constructor(file: string, statements: readonly string[]) {
    this.#file = file;
    this.#statements = statements;
  }

  /**
   * Runs `batch[i]`'s rows through statement i, all in one transaction; resolves once it is
   * committed, rejects with SQLite's error, writing none.
   */
  run(batch: Batch): Promise<void> {
    const thread = this.#thread ?? this.#start();
    const id = this.#nextId++;
    const done = new Promise<void>((resolve, reject) => thread.waiting.set(id, { resolve, reject }));
    thread.worker.ref();
    thread.worker.postMessage({ id, batch });
    return done;
  }

  /** Waits for the batches under way, then closes the thread's connection and the thread. */
  async close(): Promise<void> {
    const thread = this.#thread;
    if (thread === undefined) return;
    this.#thread = undefined;
    await new Promise<void>((resolve) => {
      thread.worker.once('exit', () => resolve());
      // Messages are handled in order: the batches sent before this one are committed first.
      thread.worker.postMessage({ close: true });
    });
  }

  #start(): Thread {
    const worker = new Worker(threadScript, {
      workerData: {
        driver,
        file: this.#file,
        statements: this.#statements,
        pragmas: [...connectionPragmas, `cache_size = -${cacheKiB}`],
      },
    });
    const thread: Thread = { worker, waiting: new Map() };
    worker.unref();
    worker.on('message', (outcome: Outcome) => {
      if ('fatal' in outcome) return fail(new Error(outcome.fatal));
      const waiting = thread.waiting.get(outcome.id);
      thread.waiting.delete(outcome.id);
      if (thread.waiting.size === 0) worker.unref();
      if (outcome.error === undefined) waiting?.resolve();
      else waiting?.reject(new Error(outcome.error));
    });
    // A thread that could not open the file or prepare the statement, or that died: every batch
    // sent to it fails, and the next batch starts a new thread.
    const fail = (error: Error) => {
      if (this.#thread === thread) this.#thread = undefined;
      for (const waiting of thread.waiting.values()) waiting.reject(error);
      thread.waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the SQLite write thread exited with code ${code}`)));
    this.#thread = thread;
    return thread;
  }
}
