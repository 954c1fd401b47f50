import fc from 'fast-check';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { RateLimiter } from '../../src/limiter/types.ts';

/** Opens a fresh limiter with an exact rolling window of `windowMs`, holding no admissions. */
export type OpenRateLimiter = (options: { windowMs: number }) => Promise<RateLimiter>;

/**
 * The behaviour every RateLimiter must show, through `take` and `peek` only (awaited, so a limiter
 * that asks a server fits as well as one that answers at once), written once and run against each
 * implementation: the in-memory limiter, the Redis limiter on real Redis, and the limiter that
 * falls back from one to the other, with Redis answering and without. Time is the caller's `nowMs`.
 */
export function describeRateLimiterContract(name: string, open: OpenRateLimiter): void {
  describe(`${name}: rate limiter contract`, () => {
    /** A limiter closed when the test finishes, whatever its outcome. */
    const limiterFor = async (windowMs: number): Promise<RateLimiter> => {
      const limiter = await open({ windowMs });
      onTestFinished(() => limiter.close());
      return limiter;
    };

    /** A limiter for one property run, closed after it. */
    const withLimiter = async (windowMs: number, run: (limiter: RateLimiter) => Promise<void>) => {
      const limiter = await open({ windowMs });
      try {
        await run(limiter);
      } finally {
        await limiter.close();
      }
    };

    it('admits 60 in a minute, refuses the 61st with the wait until the first slot frees', async () => {
      const limiter = await limiterFor(60_000);
      const start = 1_000_000;
      for (let i = 0; i < 60; i++) {
        const decision = await limiter.take('k', 60, start + i * 500);
        expect(decision).toMatchObject({ allowed: true, remaining: 59 - i });
      }
      const refused = await limiter.take('k', 60, start + 30_000);
      expect(refused).toMatchObject({
        allowed: false,
        remaining: 0,
        retryAfterSeconds: 30,
        resetSeconds: 30,
      });
      // One millisecond before the first admission is a minute old: still refused.
      expect((await limiter.take('k', 60, start + 59_999)).allowed).toBe(false);
      const again = await limiter.take('k', 60, start + 60_000);
      expect(again).toMatchObject({ allowed: true, remaining: 0 });
    });

    it('a refusal waits for the one admission in the window to leave it, not a whole window', async () => {
      const limiter = await limiterFor(60_000);
      await limiter.take('k', 1, 0);
      expect(await limiter.take('k', 1, 45_000)).toMatchObject({
        allowed: false,
        remaining: 0,
        resetSeconds: 15,
        retryAfterSeconds: 15,
      });
      expect(await limiter.peek('k', 1, 45_000)).toMatchObject({ allowed: false, retryAfterSeconds: 15 });
    });

    it('keeps keys apart', async () => {
      const limiter = await limiterFor(60_000);
      for (let i = 0; i < 3; i++) await limiter.take('a', 3, 0);
      expect((await limiter.take('a', 3, 1)).allowed).toBe(false);
      expect((await limiter.take('b', 3, 1)).allowed).toBe(true);
    });

    it('peek reports without counting', async () => {
      const limiter = await limiterFor(1000);
      expect(await limiter.peek('k', 1, 0)).toMatchObject({ allowed: true, remaining: 0 });
      expect(await limiter.peek('k', 1, 0)).toMatchObject({ allowed: true });
      await limiter.take('k', 1, 0);
      expect(await limiter.peek('k', 1, 10)).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    });

    it('follows a changed per-key limit', async () => {
      const limiter = await limiterFor(60_000);
      for (let i = 0; i < 5; i++) await limiter.take('k', 5, i);
      expect((await limiter.take('k', 3, 10)).allowed).toBe(false);
      expect((await limiter.take('k', 8, 10)).allowed).toBe(true);
    });

    it('never runs time backwards for a key', async () => {
      const limiter = await limiterFor(60_000);
      await limiter.take('k', 1, 100_000);
      expect((await limiter.take('k', 1, 0)).allowed).toBe(false);
    });

    it('a clock that steps back after a later peek counts what its own window holds', async () => {
      const limiter = await limiterFor(60_000);
      await limiter.take('k', 2, 0);
      await limiter.take('k', 2, 30_000);
      // At 70 s the admission at 0 has left the window; at 40 s it has not.
      expect(await limiter.peek('k', 2, 70_000)).toMatchObject({ allowed: true, remaining: 0 });
      expect(await limiter.take('k', 2, 40_000)).toMatchObject({
        allowed: false,
        remaining: 0,
        retryAfterSeconds: 20,
      });
    });

    it('property: peeks count nothing, and a key idle for up to a window and more decides exactly', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: 6 }),
          fc.array(fc.record({ gap: fc.integer({ min: 0, max: 70_000 }), peek: fc.boolean() }), {
            minLength: 1,
            maxLength: 60,
          }),
          (limit, operations) =>
            withLimiter(60_000, async (limiter) => {
              const admitted: number[] = [];
              let now = 100_000;
              for (const { gap, peek } of operations) {
                now += gap;
                const decision = peek
                  ? await limiter.peek('k', limit, now)
                  : await limiter.take('k', limit, now);
                const inWindow = admitted.filter((t) => t > now - 60_000).length;
                expect(decision.allowed).toBe(inWindow < limit);
                if (decision.allowed && !peek) admitted.push(now);
                const counted = admitted.filter((t) => t > now - 60_000).length;
                expect(decision.remaining).toBe(
                  Math.max(0, limit - counted - (peek && decision.allowed ? 1 : 0)),
                );
              }
            }),
        ),
        { numRuns: 200 },
      );
    });

    it('property: no interval of one window admits more than the limit, and refusals consume nothing', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: 12 }),
          fc.integer({ min: 1, max: 20 }).map((s) => s * 1000),
          fc.array(fc.integer({ min: 0, max: 4000 }), { minLength: 1, maxLength: 300 }),
          (limit, windowMs, gaps) =>
            withLimiter(windowMs, async (limiter) => {
              const admitted: number[] = [];
              let now = 0;
              for (const gap of gaps) {
                now += gap;
                const decision = await limiter.take('k', limit, now);
                // Reference model: admit iff fewer than `limit` ADMITTED requests in (now - window, now].
                // Equality with it means refusals never count and nothing is refused needlessly.
                const inWindow = admitted.filter((t) => t > now - windowMs).length;
                expect(decision.allowed).toBe(inWindow < limit);
                if (decision.allowed) admitted.push(now);
                const after = admitted.filter((t) => t > now - windowMs);
                expect(decision.remaining).toBe(limit - after.length);
                // The wait is exact: until the oldest admission in the window leaves it.
                const freeing = after[Math.max(0, after.length - limit)];
                const secondsUntilFree =
                  freeing === undefined ? 0 : Math.max(1, Math.ceil((freeing + windowMs - now) / 1000));
                expect(decision.resetSeconds).toBe(secondsUntilFree);
                expect(decision.retryAfterSeconds).toBe(decision.allowed ? 0 : secondsUntilFree);
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
            }),
        ),
        { numRuns: 300 },
      );
    });

    it('property: exact with large limits and changing per-key limits, the wait until a slot frees included', async () => {
      await fc.assert(
        fc.asyncProperty(
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
            return withLimiter(windowMs, async (limiter) => {
              const admitted: number[] = [];
              let now = 0;
              for (const { gap, limit } of steps) {
                now += gap;
                const decision = await limiter.take('k', limit, now);
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
            });
          },
        ),
        { numRuns: 100 },
      );
    });
  });
}
