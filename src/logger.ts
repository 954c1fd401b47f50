import { type Logger, pino } from 'pino';

export type { Logger };

/**
 * The one logger factory. Key material never reaches a log line: the header and every
 * query-key spelling are redacted at the serializer, whatever code logs the object.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'nerkh' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: ['req.headers["x-api-key"]', 'headers["x-api-key"]', 'apiKey', 'key', '*.apiKey', '*.key'],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
