/** Reading nerkh's log: one JSON object a line, access-log lines with `msg` "request". */

import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

/** The three parts of a run in which something was taken away and given back. */
export const phases = ['before', 'during', 'after'] as const;
export type Phase = (typeof phases)[number];

export interface PhaseTally {
  /** Responses by status code, as nerkh's access log recorded them. */
  statuses: Map<number, number>;
  /** 200s for the one key whose limit the run is meant to reach. */
  limitedKeyAdmitted: number;
  /** Lines other than access-log lines (`msg` ≠ "request"), as `level msg`. */
  events: string[];
}

interface LogLine {
  time?: string | number;
  level?: number | string;
  msg?: string;
  status?: number;
  key_id?: string;
}

/** pino's numeric levels by name (https://getpino.io/#/docs/api?id=levels). */
const levelNames: Record<number, string> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
};

function phaseAt(timeMs: number, cutAtMs: number, restoredAtMs: number): Phase {
  return timeMs < cutAtMs ? 'before' : timeMs < restoredAtMs ? 'during' : 'after';
}

interface PhaseBounds {
  /** When the run began: earlier lines (start-up, readiness checks) belong to no phase. */
  fromMs: number;
  cutAtMs: number;
  restoredAtMs: number;
  /** When the run ended: later lines (the shutdown) belong to no phase either. */
  untilMs: number;
}

/**
 * Splits nerkh's log (one JSON object a line) at the moments the cut began and ended, by each
 * line's `time`: per phase, the access log's status counts, the limited key's admissions and the
 * other lines it wrote. A line that is not JSON with a time is an error: the log is nerkh's own.
 */
export function tallyLogByPhase(
  log: string,
  bounds: PhaseBounds,
  limitedKeyId: string,
): Record<Phase, PhaseTally> {
  const { fromMs, cutAtMs, restoredAtMs, untilMs } = bounds;
  const tally = (): PhaseTally => ({ statuses: new Map(), limitedKeyAdmitted: 0, events: [] });
  const tallies: Record<Phase, PhaseTally> = { before: tally(), during: tally(), after: tally() };
  for (const text of log.split('\n')) {
    if (text.trim() === '') continue;
    const line = JSON.parse(text) as LogLine;
    const timeMs = typeof line.time === 'string' ? Date.parse(line.time) : (line.time ?? Number.NaN);
    if (!Number.isFinite(timeMs)) throw new Error(`a log line without a time: ${text}`);
    if (timeMs < fromMs || timeMs >= untilMs) continue;
    const phase = tallies[phaseAt(timeMs, cutAtMs, restoredAtMs)];
    if (line.msg === 'request' && typeof line.status === 'number') {
      phase.statuses.set(line.status, (phase.statuses.get(line.status) ?? 0) + 1);
      if (line.key_id === limitedKeyId && line.status === 200) phase.limitedKeyAdmitted++;
    } else {
      const level = typeof line.level === 'number' ? (levelNames[line.level] ?? line.level) : line.level;
      phase.events.push(`${level} ${line.msg}`);
    }
  }
  return tallies;
}

/**
 * The lines of a log file, read as they come: a run's log (an access line per request, millions
 * of them after a long warm-up) can outgrow the longest string V8 makes (512 MiB).
 */
export function logLines(path: string): AsyncIterable<string> {
  return createInterface({ input: createReadStream(path), crlfDelay: Number.POSITIVE_INFINITY });
}

/**
 * What nerkh logged about where its limits live (`rate limits: …`), as `time message (reason)`:
 * a Redis command that fails or times out sends the instance to its own in-memory limit until
 * Redis answers a probe again.
 */
export async function limiterEvents(lines: AsyncIterable<string> | Iterable<string>): Promise<string[]> {
  const events: string[] = [];
  for await (const text of lines) {
    if (!text.includes('"rate limits: ')) continue;
    const line = JSON.parse(text) as { time: string; msg: string; reason?: string };
    events.push(`${line.time} ${line.msg}${line.reason ? ` (${line.reason})` : ''}`);
  }
  return events;
}
