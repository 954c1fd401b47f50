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

/** Printable ASCII other than `"` and `\\`: a string of these needs no escaping in JSON. */
const plainJson = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * `value` as a JSON string: between quotes as it is when it needs no escaping (request ids, paths,
 * addresses, key ids nearly always), else with JSON.stringify's escaping; a third of the cost of
 * JSON.stringify for such short strings.
 */
export function jsonString(value: string): string {
  return plainJson.test(value) ? `"${value}"` : JSON.stringify(value);
}

/** `value` as JSON: null when it is not finite, as pino writes such a number. */
export function jsonNumber(value: number): string {
  return Number.isFinite(value) ? String(value) : 'null';
}

interface PinoInternals {
  [pino.symbols.chindingsSym]: string;
  [pino.symbols.timeSym]: () => string;
  [pino.symbols.endSym]: string;
  [pino.symbols.messageKeySym]: string;
  [pino.symbols.streamSym]: pino.DestinationStream;
}

/**
 * Lines of one fixed shape, such as the access log's: what `logger.info(fields, message)` writes,
 * byte for byte (a test compares them), with the fields serialized by the caller (`,"name":value`
 * each, strings through `jsonString`). pino serializes any object: it walks the keys, checks each
 * value's type and its serializers and escapes each string, which for the access line was most of
 * its cost (about a twelfth of a whole /v1/rates request under load); a line whose fields are
 * fixed and built by the caller needs none of that. The line's start and end come from the logger
 * through `pino.symbols`, the interface pino gives integrators (https://getpino.io/#/docs/api?id=pino-symbols):
 * its level, its time function, its bindings, its message key and its destination. Loggers of
 * `createLogger` have no mixin, formatters or hooks, which this leaves out; key material never
 * reaches such a line because its caller builds every field (see AccessLog).
 */
export class FixedShapeLines {
  readonly #logger: Logger & PinoInternals;
  readonly #levelValue: number;
  readonly #start: string;
  readonly #end: string;

  constructor(logger: Logger, message: string) {
    this.#logger = logger as Logger & PinoInternals;
    this.#levelValue = logger.levels.values.info as number;
    this.#start = `{"level":${this.#levelValue}`;
    const messageKey = this.#logger[pino.symbols.messageKeySym];
    this.#end = `,${jsonString(messageKey)}:${jsonString(message)}${this.#logger[pino.symbols.endSym]}`;
  }

  /** Whether the logger writes info lines at all (LOG_LEVEL). */
  get enabled(): boolean {
    return this.#logger.levelVal <= this.#levelValue;
  }

  /** Writes one info line with `fields` (`,"name":value` pairs), if info lines are written. */
  write(fields: string): void {
    if (!this.enabled) return;
    const logger = this.#logger;
    logger[pino.symbols.streamSym].write(
      `${this.#start}${logger[pino.symbols.timeSym]()}${logger[pino.symbols.chindingsSym]}${fields}${this.#end}`,
    );
  }
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
