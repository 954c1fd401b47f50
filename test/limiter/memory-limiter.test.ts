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
});
