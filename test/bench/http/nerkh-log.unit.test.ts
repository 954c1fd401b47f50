import { describe, expect, it } from 'vitest';
import { limiterEvents, tallyLogByPhase } from '../../../bench/http/nerkh-log.ts';

const bounds = {
  fromMs: Date.parse('2026-01-01T00:00:01.000Z'),
  cutAtMs: Date.parse('2026-01-01T00:00:05.000Z'),
  restoredAtMs: Date.parse('2026-01-01T00:00:10.000Z'),
  untilMs: Date.parse('2026-01-01T00:00:15.000Z'),
};

function line(iso: string, fields: Record<string, unknown>): string {
  return JSON.stringify({ level: 30, time: iso, service: 'nerkh', ...fields });
}

describe('tallyLogByPhase', () => {
  it('counts each access line in the phase its time falls in, the cut and restore moments opening theirs', () => {
    const log = [
      line('2026-01-01T00:00:04.999Z', { msg: 'request', status: 200, key_id: 'key_a' }),
      line('2026-01-01T00:00:05.000Z', { msg: 'request', status: 200, key_id: 'key_a' }),
      line('2026-01-01T00:00:07.000Z', { msg: 'request', status: 429, key_id: 'key_hot' }),
      line('2026-01-01T00:00:09.999Z', { msg: 'request', status: 200, key_id: 'key_hot' }),
      line('2026-01-01T00:00:10.000Z', { msg: 'request', status: 503 }),
      '',
    ].join('\n');
    const tallies = tallyLogByPhase(log, bounds, 'key_hot');
    expect(Object.fromEntries(tallies.before.statuses)).toEqual({ 200: 1 });
    expect(Object.fromEntries(tallies.during.statuses)).toEqual({ 200: 2, 429: 1 });
    expect(Object.fromEntries(tallies.after.statuses)).toEqual({ 503: 1 });
    expect([tallies.before, tallies.during, tallies.after].map((t) => t.limitedKeyAdmitted)).toEqual([
      0, 1, 0,
    ]);
  });

  it('keeps the lines that are not access lines, with their level, in their phase', () => {
    const log = [
      line('2026-01-01T00:00:01.000Z', { msg: 'nerkh is running' }),
      JSON.stringify({ level: 40, time: '2026-01-01T00:00:05.100Z', msg: 'rate limits: Redis unreachable' }),
    ].join('\n');
    const tallies = tallyLogByPhase(log, bounds, 'key_hot');
    expect(tallies.before.events).toEqual(['info nerkh is running']);
    expect(tallies.during.events).toEqual(['warn rate limits: Redis unreachable']);
    expect(tallies.after.events).toEqual([]);
  });

  it('leaves out what was logged before the run began and after it ended: readiness checks, shutdown', () => {
    const log = [
      line('2026-01-01T00:00:00.999Z', { msg: 'request', status: 503 }),
      line('2026-01-01T00:00:00.999Z', { msg: 'nerkh is running' }),
      line('2026-01-01T00:00:01.000Z', { msg: 'request', status: 200 }),
      line('2026-01-01T00:00:14.999Z', { msg: 'request', status: 200 }),
      line('2026-01-01T00:00:15.000Z', { msg: 'shutting down' }),
    ].join('\n');
    const tallies = tallyLogByPhase(log, bounds, 'key_hot');
    expect(Object.fromEntries(tallies.before.statuses)).toEqual({ 200: 1 });
    expect(Object.fromEntries(tallies.after.statuses)).toEqual({ 200: 1 });
    expect([tallies.before.events, tallies.after.events]).toEqual([[], []]);
  });

  it('refuses a line without a time rather than count it in some phase', () => {
    expect(() => tallyLogByPhase('{"msg":"request","status":200}', bounds, 'key_hot')).toThrow(
      /without a time/,
    );
  });
});

describe('limiterEvents', () => {
  it('lists the lines about where the limits live, with their reason, and nothing else', async () => {
    const log = [
      line('2026-01-01T00:00:01.000Z', { msg: 'request', status: 200 }),
      line('2026-01-01T00:00:02.000Z', {
        level: 40,
        msg: 'rate limits: Redis unreachable, each API instance now limits requests on its own',
        reason: 'Redis does not answer (Command timed out)',
      }),
      line('2026-01-01T00:00:03.000Z', { msg: 'rate limits: Redis answers again' }),
    ];
    expect(await limiterEvents(log)).toEqual([
      '2026-01-01T00:00:02.000Z rate limits: Redis unreachable, each API instance now limits requests on its own (Redis does not answer (Command timed out))',
      '2026-01-01T00:00:03.000Z rate limits: Redis answers again',
    ]);
  });
});
