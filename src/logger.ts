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
 * stdout for a server that writes one access-log line per request: lines are collected and written
 * in batches of at least 4 KiB, so a busy server makes one write per ~15 requests instead of one
 * each, and the write happens off the event loop (https://getpino.io/#/docs/asynchronous). A quiet
 * server's lines go out within `flushMs`; at exit pino flushes what is left synchronously, so no
 * line is lost on a normal or signalled stop, and lines are always written whole.
 */
export function bufferedStdout(flushMs = 1000): pino.DestinationStream {
  return pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: flushMs });
}
