import { describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../../src/limiter/memory-limiter.ts';
import { describeRateLimiterContract } from './rate-limiter-contract.ts';

describeRateLimiterContract('MemoryRateLimiter', async ({ windowMs }) => new MemoryRateLimiter({ windowMs }));

describe('MemoryRateLimiter (in one process)', () => {
  it('bounds the number of tracked keys', async () => {
    const limiter = new MemoryRateLimiter({ windowMs: 60_000, maxKeys: 2 });
    await limiter.take('a', 1, 0);
    await limiter.take('b', 1, 0);
    await limiter.take('c', 1, 0);
    // "a" was forgotten to make room, so it is admitted again; "c" is still tracked.
    expect((await limiter.take('a', 1, 1)).allowed).toBe(true);
    expect((await limiter.take('c', 1, 1)).allowed).toBe(false);
  });

  it('allocates memory for the admissions a key makes, not for its limit', () => {
    const limiter = new MemoryRateLimiter({ windowMs: 60_000 });
    for (let key = 0; key < 1000; key++) limiter.take(`key-${key}`, 1_000_000, 1000);
    // 1,000 keys allowed a million requests each, one request each: a few slots per key.
    expect(limiter.allocatedSlots).toBeLessThanOrEqual(4 * 1000);
    // One busy key: its ring holds about what one window admitted, and no more than the limit.
    for (let i = 0; i < 5000; i++) limiter.take('busy', 1_000_000, 2000 + i * 10);
    expect(limiter.allocatedSlots - 4 * 1000).toBeLessThanOrEqual(2 * 5000);
    // Steady at 10 requests per second for three windows: the ring reuses slots that left the window.
    const slotsBefore = limiter.allocatedSlots;
    for (let i = 0; i < 1800; i++) limiter.take('steady', 1_000_000, 100_000 + i * 100);
    expect(limiter.allocatedSlots - slotsBefore).toBeLessThanOrEqual(2 * 600);
    // The last window holds the 599 admissions after t = 120,000 ms; a peek reports one fewer.
    expect(limiter.peek('steady', 1_000_000, 100_000 + 1800 * 100).remaining).toBe(1_000_000 - 600);
  });

  it('gives back the slots of a key that was busier earlier in its sweep, before its next request', () => {
    const limiter = new MemoryRateLimiter({ windowMs: 60_000 });
    for (let i = 0; i < 500; i++) limiter.take('was-busy', 1_000_000, i);
    // A sweep a window after the first decision: the key's admissions are all still within a
    // window of its newest, so it keeps them.
    limiter.peek('another', 60, 60_400);
    limiter.take('was-busy', 1_000_000, 61_000);
    expect(limiter.allocatedSlots).toBeGreaterThanOrEqual(501);
    // The next sweep, a window later, drops the 500 admissions more than a window older than the
    // key's newest.
    limiter.peek('another', 60, 120_400);
    expect(limiter.allocatedSlots).toBeLessThanOrEqual(4);
    expect(limiter.peek('was-busy', 1_000_000, 120_400).remaining).toBe(1_000_000 - 2);
  });

  it('counts exactly after an idle spell, however many admissions left the window meanwhile', () => {
    const limiter = new MemoryRateLimiter({ windowMs: 60_000 });
    for (let i = 0; i < 30; i++) limiter.take('k', 50, i * 1000);
    // 65.5 s after the first: the 6 admissions at 0 … 5 s have left the window, 24 remain in it.
    for (const [nowMs, inWindow] of [
      [65_500, 24],
      [70_500, 19],
      [88_999, 1],
      [89_000, 0],
    ] as const) {
      expect(limiter.peek('k', 50, nowMs)).toMatchObject({ allowed: true, remaining: 50 - inWindow - 1 });
    }
  });

  it('answers synchronously, so the request path waits on no promise', () => {
    const limiter = new MemoryRateLimiter({ windowMs: 1000 });
    expect(limiter.take('k', 2, 0)).toMatchObject({ allowed: true, remaining: 1 });
    expect(limiter.peek('k', 2, 0)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('forgets idle keys a batch per decision, so no single request waits on a sweep of every key', () => {
    const limiter = new MemoryRateLimiter({ windowMs: 60_000 });
    for (let key = 0; key < 2500; key++) limiter.take(`idle-${key}`, 60, 1000);
    expect(limiter.trackedKeys).toBe(2500);
    // A window later the sweep starts: each decision forgets at most a batch (1,000) of idle keys.
    limiter.take('busy', 60, 70_000);
    expect(limiter.trackedKeys).toBeGreaterThanOrEqual(1500);
    limiter.take('busy', 60, 70_001);
    limiter.take('busy', 60, 70_002);
    limiter.take('busy', 60, 70_003);
    expect(limiter.trackedKeys).toBe(1);
  });
});
