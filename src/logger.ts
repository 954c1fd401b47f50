import { type Logger, pino } from 'pino';
import { flatString } from './flat-string.ts';

export type { Logger };

/**
 * pino's isoTime (`,"time":"<ISO 8601>"`), formatted once per millisecond instead of once per
 * line (under load many access-log lines share a millisecond), and from a prefix made once per
 * second: appending the milliseconds to the prefix costs a small fraction of `toISOString`
 * (docs/decisions/0004-flat-header-strings.md). Same text as `toISOString` for every year it
 * writes with four digits (0 to 9999).
 */
let formattedMs = Number.NaN;
let formattedTime = '';
let prefixSecond = Number.NaN;
/** `,"time":"YYYY-MM-DDTHH:mm:ss.` of `prefixSecond`. */
let secondPrefix = '';
function isoTime(): string {
  const nowMs = Date.now();
  if (nowMs !== formattedMs) {
    formattedMs = nowMs;
    const second = Math.floor(nowMs / 1000);
    if (second !== prefixSecond) {
      prefixSecond = second;
      secondPrefix = flatString(',"time":"', new Date(second * 1000).toISOString().slice(0, -4));
    }
    const milliseconds = nowMs - second * 1000;
    formattedTime = `${secondPrefix}${milliseconds < 10 ? '00' : milliseconds < 100 ? '0' : ''}${milliseconds}Z"`;
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
 * What goes between the quotes of `value` as a JSON string: `value` itself when it is printable
 * ASCII other than `"` and `\\` (request ids, paths, addresses, key ids nearly always), else
 * JSON.stringify's escaping. A loop over the characters: for such short strings a regular
 * expression (a call into the engine's runtime each time) or JSON.stringify costs several times as
 * much, and a plain value is handed back as it is, so writing it between quotes in a template makes
 * no string of its own.
 */
export function jsonStringContent(value: string): string {
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if (code < 0x20 || code > 0x7e || code === 0x22 || code === 0x5c)
      return JSON.stringify(value).slice(1, -1);
  }
  return value;
}

/** `value` as a JSON string, quotes included. */
export function jsonString(value: string): string {
  return `"${jsonStringContent(value)}"`;
}

/** `value` as JSON: null when it is not finite, as pino writes such a number. */
export function jsonNumber(value: number): string {
  return Number.isFinite(value) ? String(value) : 'null';
}

/** Hundredths up to which `jsonHundredths` writes the text itself: a small integer (Smi) in V8. */
const mostHundredthsWritten = 0x3fff_ffff;

/**
 * `value` rounded to hundredths, as JSON: the same text as `jsonNumber(Math.round(value * 100) / 100)`
 * (a test compares them), written from the whole number of hundredths. Turning a fraction into its
 * shortest decimal text is V8's general double-to-text algorithm, once per access line; small
 * integers come from V8's number-string cache, far cheaper
 * (docs/decisions/0007-access-log-serialized-and-batched.md). The quotient of a whole number of
 * hundredths by 100 is the double nearest that decimal, so its shortest text is that decimal with
 * trailing zeros dropped.
 */
export function jsonHundredths(value: number): string {
  const hundredths = Math.round(value * 100);
  if (!(hundredths >= 0 && hundredths <= mostHundredthsWritten)) return jsonNumber(hundredths / 100);
  const whole = Math.floor(hundredths / 100);
  const fraction = hundredths - whole * 100;
  if (fraction === 0) return `${whole}`;
  if (fraction % 10 === 0) return `${whole}.${fraction / 10}`;
  return `${whole}.${fraction < 10 ? '0' : ''}${fraction}`;
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
 * each, strings through `jsonStringContent`). pino serializes any object: it walks the keys, checks each
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
  /**
   * The logger's time function, bindings and destination, read once: they are fixed when a
   * logger is made (nerkh never calls `setBindings`), and each read by symbol costs a
   * dictionary lookup on the logger per line.
   */
  readonly #timeOf: () => string;
  readonly #bindings: string;
  readonly #destination: pino.DestinationStream;
  /** The line's start up to its fields, for the time it was made with (the time changes once a millisecond). */
  #time = '';
  #head = '';

  constructor(logger: Logger, message: string) {
    this.#logger = logger as Logger & PinoInternals;
    this.#levelValue = logger.levels.values.info as number;
    this.#start = flatString('{"level":', String(this.#levelValue));
    this.#timeOf = this.#logger[pino.symbols.timeSym];
    this.#bindings = this.#logger[pino.symbols.chindingsSym];
    this.#destination = this.#logger[pino.symbols.streamSym];
    const messageKey = this.#logger[pino.symbols.messageKeySym];
    this.#end = flatString(
      ',',
      jsonString(messageKey),
      ':',
      jsonString(message),
      this.#logger[pino.symbols.endSym],
    );
  }

  /** Whether the logger writes info lines at all (LOG_LEVEL). */
  get enabled(): boolean {
    return this.#logger.levelVal <= this.#levelValue;
  }

  /** Writes one info line with `fields` (`,"name":value` pairs), if info lines are written. */
  write(fields: string): void {
    if (!this.enabled) return;
    const time = this.#timeOf();
    if (time !== this.#time) {
      this.#time = time;
      this.#head = flatString(this.#start, time, this.#bindings);
    }
    this.#destination.write(`${this.#head}${fields}${this.#end}`);
  }
}

/**
 * Bytes of lines collected before they are handed on as one write: one `write(2)` per ~70 access
 * lines instead of one each. Larger batches gained nothing measurable.
 */
const batchBytes = 16_384;

/** sonic-boom in its buffer content mode, which its types leave out: it takes buffers, not strings. */
interface BufferSink {
  write(data: Buffer): boolean;
  flush(callback?: (error?: Error) => void): void;
  flushSync(): void;
}

/**
 * Lines encoded into a buffer as they come and handed to sonic-boom (in its buffer mode) one
 * buffer per batch. Each line is encoded at once, so no line outlives its request as a string:
 * collected as strings and joined, the lines of a batch (each a rope of a dozen pieces) survived a
 * collection or two of the young generation and were flattened and encoded twice, once by the join
 * and once by the write, about a twentieth of a request's cost under load. A line longer than a
 * batch goes alone.
 */
class LineBatches implements pino.DestinationStream {
  readonly #sink: BufferSink;
  #batch = LineBatches.#newBatch();
  #used = 0;

  constructor(sink: BufferSink, flushMs: number) {
    this.#sink = sink;
    setInterval(() => this.#handOn(), flushMs).unref();
    // After pino's own exit handler or before it, whichever runs first: nothing collected is lost.
    process.once('exit', () => this.flushSync());
  }

  /** Room for a full batch and one more line of a few kilobytes, so a batch rarely ends short. */
  static #newBatch(): Buffer {
    return Buffer.allocUnsafeSlow(2 * batchBytes);
  }

  write(line: string): void {
    // A UTF-16 code unit takes at most 3 bytes in UTF-8.
    const most = 3 * line.length;
    if (most > this.#batch.length - this.#used) {
      this.#handOn();
      if (most > this.#batch.length) {
        this.#sink.write(Buffer.from(line));
        return;
      }
    }
    this.#used += this.#batch.write(line, this.#used);
    if (this.#used >= batchBytes) this.#handOn();
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
    if (this.#used === 0) return;
    // sonic-boom keeps the buffer until it is written: the next lines go to a new one.
    this.#sink.write(this.#batch.subarray(0, this.#used));
    this.#batch = LineBatches.#newBatch();
    this.#used = 0;
  }
}

/**
 * stdout for a server that writes one access-log line per request: lines are collected and written
 * in batches of at least 16 KiB, so a busy server makes one write per many requests instead of
 * one each. A quiet server's lines go out within `flushMs`; at exit what is left is written, so no line
 * is lost on a normal or signalled stop, and lines are always written whole.
 *
 * Each batch is written at once, from the event loop (sonic-boom's sync mode, what pino's own
 * default destination does). Handed to libuv's thread pool instead (sonic-boom's async mode), each
 * write cost a thread switch there and back on the server's core, most of the throughput of
 * `/v1/rates` (docs/decisions/0007-access-log-serialized-and-batched.md). So, as with any program
 * that logs to stdout synchronously, a reader that stops reading (a full pipe) holds the server
 * until it reads again; it never grows the process's memory.
 */
export function bufferedStdout(flushMs = 1000): pino.DestinationStream {
  const sink = pino.destination({ dest: 1, sync: true, contentMode: 'buffer' }) as unknown as BufferSink;
  return new LineBatches(sink, flushMs);
}
