import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../../src/limiter/memory-limiter.ts';

describe('MemoryRateLimiter (exact rolling window)', () => {
  it('admits 60 in a minute, refuses the 61st with the wait until the first slot frees', async () => {
    const limiter = new MemoryRateLimiter({ windowMs: 60_000 });
    const start = 1_000_000;
    for (let i = 0; i < 60; i++) {
      const decision = await limiter.take('k', 60, start + i * 500);
      expect(decision).toMatchObject({ allowed: true, remaining: 59 - i });
    }
    const refused = await limiter.take('k', 60, start + 30_000);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 30, resetSeconds: 30 });
    // One millisecond before the first admission is a minute old: still refused.
    expect((await limiter.take('k', 60, start + 59_999)).allowed).toBe(false);
    const again = await limiter.take('k', 60, start + 60_000);
    expect(again).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('keeps keys apart', async () => {
    const limiter = new MemoryRateLimiter({ windowMs: 60_000 });
    for (let i = 0; i < 3; i++) await limiter.take('a', 3, 0);
    expect((await limiter.take('a', 3, 1)).allowed).toBe(false);
    expect((await limiter.take('b', 3, 1)).allowed).toBe(true);
  });

  it('peek reports without counting', async () => {
    const limiter = new MemoryRateLimiter({ windowMs: 1000 });
    expect(await limiter.peek('k', 1, 0)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await limiter.peek('k', 1, 0)).toMatchObject({ allowed: true });
    await limiter.take('k', 1, 0);
    expect(await limiter.peek('k', 1, 10)).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
  });

  it('follows a changed per-key limit', async () => {
    const limiter = new MemoryRateLimiter({ windowMs: 60_000 });
    for (let i = 0; i < 5; i++) await limiter.take('k', 5, i);
    expect((await limiter.take('k', 3, 10)).allowed).toBe(false);
    expect((await limiter.take('k', 8, 10)).allowed).toBe(true);
  });

  it('never runs time backwards for a key', async () => {
    const limiter = new MemoryRateLimiter({ windowMs: 60_000 });
    await limiter.take('k', 1, 100_000);
    expect((await limiter.take('k', 1, 0)).allowed).toBe(false);
  });

  it('property: no interval of one window admits more than the limit, and refusals consume nothing', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 20 }).map((s) => s * 1000),
        fc.array(fc.integer({ min: 0, max: 4000 }), { minLength: 1, maxLength: 300 }),
        (limit, windowMs, gaps) => {
          const limiter = new MemoryRateLimiter({ windowMs });
          const admitted: number[] = [];
          let now = 0;
          for (const gap of gaps) {
            now += gap;
            const decision = limiter.decide('k', limit, now, true);
            // Reference model: admit iff fewer than `limit` ADMITTED requests in (now - window, now].
            // Equality with it means refusals never count and nothing is refused needlessly.
            const inWindow = admitted.filter((t) => t > now - windowMs).length;
            expect(decision.allowed).toBe(inWindow < limit);
            if (decision.allowed) admitted.push(now);
            expect(decision.remaining).toBe(limit - admitted.filter((t) => t > now - windowMs).length);
            if (!decision.allowed) {
              expect(decision.retryAfterSeconds).toBeGreaterThanOrEqual(1);
              // Waiting the advertised time is enough.
              const oldest = admitted.filter((t) => t > now - windowMs)[0] as number;
              expect(oldest + windowMs).toBeLessThanOrEqual(now + decision.retryAfterSeconds * 1000);
            }
          }
          // The promise itself: every window [t, t + windowMs) starting at an admission holds ≤ limit.
          for (const t of admitted) {
            expect(admitted.filter((u) => u >= t && u < t + windowMs).length).toBeLessThanOrEqual(limit);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('bounds the number of tracked keys', async () => {
    const limiter = new MemoryRateLimiter({ windowMs: 60_000, maxKeys: 2 });
    await limiter.take('a', 1, 0);
    await limiter.take('b', 1, 0);
    await limiter.take('c', 1, 0);
    // "a" was forgotten to make room, so it is admitted again; "c" is still tracked.
    expect((await limiter.take('a', 1, 1)).allowed).toBe(true);
    expect((await limiter.take('c', 1, 1)).allowed).toBe(false);
  });

  it('property: exact with large limits and changing overrides, while the ring grows and shrinks', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            gap: fc.integer({ min: 0, max: 1500 }),
            // Mostly one override, now and then an edit (lower or higher) as an operator makes.
            limit: fc.oneof(
              { weight: 9, arbitrary: fc.constant(150) },
              { weight: 1, arbitrary: fc.integer({ min: 1, max: 400 }) },
            ),
          }),
          { minLength: 1, maxLength: 1500 },
        ),
        (steps) => {
          const windowMs = 10_000;
          const limiter = new MemoryRateLimiter({ windowMs });
          const admitted: number[] = [];
          let now = 0;
          for (const { gap, limit } of steps) {
            now += gap;
            const decision = limiter.decide('k', limit, now, true);
            const inWindow = admitted.filter((t) => t > now - windowMs);
            expect(decision.allowed).toBe(inWindow.length < limit);
            if (decision.allowed) admitted.push(now);
            const after = admitted.filter((t) => t > now - windowMs);
            expect(decision.remaining).toBe(Math.max(0, limit - after.length));
            // The next slot frees when the count drops below the limit (the oldest leaving, unless
            // a lowered limit left more admissions in the window than it allows).
            const freeing = after[Math.max(0, after.length - limit)];
            expect(decision.resetSeconds).toBe(
              freeing === undefined ? 0 : Math.max(1, Math.ceil((freeing + windowMs - now) / 1000)),
            );
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it('allocates memory for the admissions a key makes, not for its limit', () => {
    const limiter = new MemoryRateLimiter({ windowMs: 60_000 });
    for (let key = 0; key < 1000; key++) limiter.decide(`key-${key}`, 1_000_000, 1000, true);
    // 1,000 keys allowed a million requests each, one request each: a few slots per key.
    expect(limiter.allocatedSlots).toBeLessThanOrEqual(4 * 1000);
    // One busy key: its ring holds about what one window admitted, and no more than the limit.
    for (let i = 0; i < 5000; i++) limiter.decide('busy', 1_000_000, 2000 + i * 10, true);
    expect(limiter.allocatedSlots - 4 * 1000).toBeLessThanOrEqual(2 * 5000);
    // Steady at 10 requests per second for three windows: the ring reuses slots that left the window.
    const slotsBefore = limiter.allocatedSlots;
    for (let i = 0; i < 1800; i++) limiter.decide('steady', 1_000_000, 100_000 + i * 100, true);
    expect(limiter.allocatedSlots - slotsBefore).toBeLessThanOrEqual(2 * 600);
    // The last window holds the 599 admissions after t = 120,000 ms; a peek reports one fewer.
    expect(limiter.decide('steady', 1_000_000, 100_000 + 1800 * 100, false).remaining).toBe(1_000_000 - 600);
  });

  it('answers synchronously, so the request path waits on no promise', () => {
    const limiter = new MemoryRateLimiter({ windowMs: 1000 });
    expect(limiter.take('k', 2, 0)).toMatchObject({ allowed: true, remaining: 1 });
    expect(limiter.peek('k', 2, 0)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('forgets idle keys a batch per decision, so no single request waits on a sweep of every key', () => {
    const limiter = new MemoryRateLimiter({ windowMs: 60_000 });
    for (let key = 0; key < 2500; key++) limiter.decide(`idle-${key}`, 60, 1000, true);
    expect(limiter.trackedKeys).toBe(2500);
    // A window later the sweep starts: each decision forgets at most a batch (1,000) of idle keys.
    limiter.decide('busy', 60, 70_000, true);
    expect(limiter.trackedKeys).toBeGreaterThanOrEqual(1500);
    limiter.decide('busy', 60, 70_001, true);
    limiter.decide('busy', 60, 70_002, true);
    limiter.decide('busy', 60, 70_003, true);
    expect(limiter.trackedKeys).toBe(1);
  });
});
