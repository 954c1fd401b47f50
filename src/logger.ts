import { type Logger, pino } from 'pino';

export type { Logger };

/**
 * pino's isoTime (`,"time":"<ISO 8601>"`), formatted once per millisecond instead of once per
 * line: under load many access-log lines share a millisecond.
 */
let formattedMs = Number.NaN;
let formattedTime = '';
function isoTime(): string {
  const nowMs = Date.now();
  if (nowMs !== formattedMs) {
    formattedMs = nowMs;
    formattedTime = `,"time":"${new Date(nowMs).toISOString()}"`;
  }
  return formattedTime;
}

const censor = '[redacted]';
/** Field names that may hold a key, wherever a logged object has them. */
const keyFields = ['apiKey', 'key'];

/**
 * The one logger factory. Key material never reaches a log line: the header and every
 * query-key spelling are redacted at the serializer, whatever code logs the object.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'nerkh' },
      timestamp: isoTime,
      redact: {
        paths: [
          'req.headers["x-api-key"]',
          'headers["x-api-key"]',
          ...keyFields,
          ...keyFields.map((field) => `*.${field}`),
        ],
        censor,
      },
    },
    destination,
  );
}

/**
 * A child for lines whose every field is a string or a number, such as the access log. The
 * header paths and the `*.` wildcards can only match inside object-valued fields, which such a
 * line has none of, so they are left out; the top-level key names stay redacted. Checking the
 * wildcards on every field made each access-log line several times dearer (about a fifth of a
 * request's cost under load), for a match that cannot happen.
 */
export function flatLineLogger(logger: Logger): Logger {
  return logger.child({}, { redact: { paths: keyFields, censor } });
}

/**
 * Characters of lines collected before they are handed on as one write. Each asynchronous write
 * costs about as much CPU whatever its size up to here (a thread-pool round trip, with the server
 * pinned to one core: 26 µs for 4 KiB, 32 µs for 16 KiB measured on the development machine), so
 * larger batches cost less per line: about 0.5 µs for a 100-character access line instead of 1.5.
 */
const batchChars = 16_384;

/**
 * Lines collected in an array and handed to sonic-boom joined, one string per batch. sonic-boom's
 * own batching (`minLength`) appends each line to its pending string and measures that string's
 * UTF-8 length on every write, which flattens a growing rope each time: with one access-log line
 * per request that was a twentieth of a request's cost under load, for bookkeeping alone.
 */
class LineBatches implements pino.DestinationStream {
  readonly #sink: ReturnType<typeof pino.destination>;
  #lines: string[] = [];
  #chars = 0;

  constructor(sink: ReturnType<typeof pino.destination>, flushMs: number) {
    this.#sink = sink;
    setInterval(() => this.#handOn(), flushMs).unref();
    // After pino's own exit handler or before it, whichever runs first: nothing collected is lost.
    process.once('exit', () => this.flushSync());
  }

  write(line: string): void {
    this.#lines.push(line);
    this.#chars += line.length;
    if (this.#chars >= batchChars) this.#handOn();
  }

  /** Hands on what is collected and asks sonic-boom to write it now (pino's `logger.flush()`). */
  flush(callback?: (error?: Error) => void): void {
    this.#handOn();
    this.#sink.flush(callback);
  }

  flushSync(): void {
    this.#handOn();
    this.#sink.flushSync();
  }

  #handOn(): void {
    if (this.#lines.length === 0) return;
    this.#sink.write(this.#lines.join(''));
    this.#lines = [];
    this.#chars = 0;
  }
}

/**
 * stdout for a server that writes one access-log line per request: lines are collected and written
 * in batches of at least 16 KiB, so a busy server makes one write per ~60 requests instead of one
 * each, and the write happens off the event loop (https://getpino.io/#/docs/asynchronous). A quiet
 * server's lines go out within `flushMs`; at exit what is left is written synchronously, so no
 * line is lost on a normal or signalled stop, and lines are always written whole.
 */
export function bufferedStdout(flushMs = 1000): pino.DestinationStream {
  return new LineBatches(pino.destination({ dest: 1, sync: false }), flushMs);
}
