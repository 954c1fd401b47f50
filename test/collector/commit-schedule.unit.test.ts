import { describe, expect, it, onTestFinished } from 'vitest';
import { CommitSchedule } from '../../src/collector/commit-schedule.ts';
import type { Snapshot } from '../../src/domain/rates.ts';
import { FakeTime } from '../support/fake-time.ts';

const T0 = Date.parse('2026-03-01T10:00:00.000Z');

/**
 * A schedule over fake time whose commits are recorded by the time they started. `result` says
 * what a commit resolves to (null = nothing to commit); `commitMs` how long the nth commit (from 1) takes.
 */
function setup(options: { graceMs?: number; refreshMs?: number; commitMs?: (nth: number) => number } = {}) {
  const time = new FakeTime(T0);
  const commits: number[] = [];
  let result: Snapshot | null = { id: 1, updated_at: '', source: 'binance', usdt_irt: null, rates: [] };
  const schedule = new CommitSchedule({
    timers: time,
    clock: time.clock,
    graceMs: options.graceMs ?? 5000,
    refreshMs: options.refreshMs ?? 60_000,
    commit: async () => {
      commits.push(time.now - T0);
      const commitMs = options.commitMs?.(commits.length) ?? 0;
      if (commitMs > 0) await new Promise<void>((resolve) => time.setTimeout(resolve, commitMs));
      return result;
    },
  });
  onTestFinished(() => schedule.stop());
  const nothingToCommit = (nothing: boolean) => {
    result = nothing ? null : { id: 1, updated_at: '', source: 'binance', usdt_irt: null, rates: [] };
  };
  return { time, schedule, commits, nothingToCommit };
}

describe('CommitSchedule: the first commit', () => {
  it('comes when the grace period after start ends', async () => {
    const { time, schedule, commits } = setup({ graceMs: 5000 });
    schedule.start();
    await time.advance(4999);
    expect(commits).toEqual([]);
    await time.advance(1);
    expect(commits).toEqual([5000]);
  });

  it('comes right away (out of the caller) once everything has quoted, and only once', async () => {
    const { time, schedule, commits } = setup({ graceMs: 5000, refreshMs: 60_000 });
    schedule.start();
    await time.advance(200);
    schedule.allQuoted();
    expect(commits).toEqual([]);
    await time.advance(0);
    expect(commits).toEqual([200]);
    schedule.allQuoted();
    await time.advance(10_000);
    expect(commits).toEqual([200]);
  });

  it('is not brought forward by allQuoted before start', async () => {
    const { time, schedule, commits } = setup({ graceMs: 5000 });
    schedule.allQuoted();
    schedule.start();
    await time.advance(4999);
    expect(commits).toEqual([]);
    await time.advance(1);
    expect(commits).toEqual([5000]);
  });

  it('is tried again after another grace period while there is nothing to commit', async () => {
    const { time, schedule, commits, nothingToCommit } = setup({ graceMs: 5000, refreshMs: 60_000 });
    nothingToCommit(true);
    schedule.start();
    await time.advance(10_000);
    expect(commits).toEqual([5000, 10_000]);
    nothingToCommit(false);
    await time.advance(5000);
    expect(commits).toEqual([5000, 10_000, 15_000]);
    await time.advance(60_000);
    expect(commits).toEqual([5000, 10_000, 15_000, 75_000]);
  });

  it('can still be brought forward by allQuoted after a commit that had nothing', async () => {
    const { time, schedule, commits, nothingToCommit } = setup({ graceMs: 5000 });
    nothingToCommit(true);
    schedule.start();
    await time.advance(5000);
    nothingToCommit(false);
    await time.advance(1000);
    schedule.allQuoted();
    await time.advance(0);
    expect(commits).toEqual([5000, 6000]);
  });
});

describe('CommitSchedule: the cadence', () => {
  it('commits every refresh interval from the first commit', async () => {
    const { time, schedule, commits } = setup({ graceMs: 5000, refreshMs: 60_000 });
    schedule.start();
    schedule.allQuoted();
    await time.advance(180_000);
    expect(commits).toEqual([0, 60_000, 120_000, 180_000]);
  });

  it('does not drift when commits take time', async () => {
    const { time, schedule, commits } = setup({ graceMs: 5000, refreshMs: 60_000, commitMs: () => 700 });
    schedule.start();
    await time.advance(5000 + 180_700);
    expect(commits).toEqual([5000, 65_700, 125_700, 185_700]);
  });

  it('after a commit that overran the interval, commits once and takes the cadence up from there', async () => {
    const { time, schedule, commits } = setup({
      graceMs: 1000,
      refreshMs: 10_000,
      commitMs: (nth) => (nth === 2 ? 35_000 : 0),
    });
    schedule.start();
    await time.advance(66_000);
    // The second commit ends at 46 s, past three slots: one commit then, not one per missed slot.
    expect(commits).toEqual([1000, 11_000, 46_000, 56_000, 66_000]);
  });

  it('stops: no timer left, no commit after', async () => {
    const { time, schedule, commits } = setup({ graceMs: 5000, refreshMs: 60_000 });
    schedule.start();
    schedule.allQuoted();
    await time.advance(60_000);
    schedule.stop();
    expect(time.pendingTimers).toBe(0);
    await time.advance(3_600_000);
    expect(commits).toEqual([0, 60_000]);
  });

  it('stops during the grace period', async () => {
    const { time, schedule, commits } = setup({ graceMs: 5000 });
    schedule.start();
    await time.advance(1000);
    schedule.stop();
    expect(time.pendingTimers).toBe(0);
    await time.advance(60_000);
    expect(commits).toEqual([]);
  });
});
