import { describe, expect, it, onTestFinished } from 'vitest';
import { Probes } from '../../src/metrics/probes.ts';

/** Holds the event loop, as a long synchronous task would. */
function holdEventLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function probesOf(options: ConstructorParameters<typeof Probes>[0]): Probes {
  const probes = new Probes(options);
  onTestFinished(() => probes.stop());
  return probes;
}

describe('Probes', () => {
  it('is live while the event loop turns, not after it was held past the bound, and live again a window or two later', async () => {
    const probes = probesOf({ storeAnswers: async () => 1, maxLoopDelayMs: 500, loopWindowMs: 400 });
    await sleep(100);
    expect(probes.live()).toEqual({ ok: true, reason: 'live' });
    holdEventLoop(800);
    await sleep(30);
    const held = probes.live();
    expect(held.ok).toBe(false);
    expect(held.reason).toMatch(/^the event loop was held \d+ ms at a time \(bound 500 ms\)$/);
    // Remembered for the rest of its window and the next one, then forgotten.
    await sleep(1000);
    expect(probes.live().ok).toBe(true);
  });

  it('is not ready before the API has a snapshot, and ready with one however old it is', async () => {
    const probes = probesOf({ storeAnswers: async () => 1 });
    let snapshot: { updated_at: string } | null = null;
    probes.watchSnapshot(() => snapshot);
    expect(await probes.ready()).toEqual({ ok: false, reason: 'no snapshot loaded yet' });
    snapshot = { updated_at: '2020-01-01T00:00:00.000Z' };
    expect(await probes.ready()).toEqual({ ok: true, reason: 'ready' });
  });

  it('keeps an API with a snapshot ready while the store fails or hangs: it still serves what it holds', async () => {
    let queries = 0;
    const probes = probesOf({
      storeAnswers: () => {
        queries++;
        return new Promise(() => {});
      },
      storeTimeoutMs: 100,
    });
    probes.watchSnapshot(() => ({ updated_at: '2025-01-01T00:00:00.000Z' }));
    expect(await probes.ready()).toEqual({ ok: true, reason: 'ready' });
    expect(queries).toBe(0);
  });

  it('is not ready from the moment it drains, with a snapshot or without an API', async () => {
    const api = probesOf({ storeAnswers: async () => 1 });
    api.watchSnapshot(() => ({ updated_at: '2025-01-01T00:00:00.000Z' }));
    expect((await api.ready()).ok).toBe(true);
    api.drain();
    expect(await api.ready()).toEqual({ ok: false, reason: 'draining: the process is stopping' });
    expect(api.live().ok).toBe(true);
    const collector = probesOf({ storeAnswers: async () => 1 });
    collector.drain();
    expect((await collector.ready()).ok).toBe(false);
  });

  it('is ready without a snapshot where no API runs (the collector role), once the store answers', async () => {
    expect(await probesOf({ storeAnswers: async () => 0 }).ready()).toEqual({ ok: true, reason: 'ready' });
  });

  it('is not ready where no API runs when the store fails (its error class and code, never the message) or does not answer in time', async () => {
    const failing = probesOf({
      storeAnswers: async () => {
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432 (postgres://nerkh:s3cret@db)'), {
          code: 'ECONNREFUSED',
        });
      },
    });
    expect(await failing.ready()).toEqual({
      ok: false,
      reason: 'the store failed: Error ECONNREFUSED',
    });
    const hanging = probesOf({ storeAnswers: () => new Promise(() => {}), storeTimeoutMs: 100 });
    expect(await hanging.ready()).toEqual({ ok: false, reason: 'the store did not answer within 100 ms' });
  });

  it('asks the store once for probes that arrive together', async () => {
    let queries = 0;
    let answer: (value: number) => void = () => {};
    const probes = probesOf({
      storeAnswers: () => {
        queries++;
        return new Promise<number>((resolve) => {
          answer = resolve;
        });
      },
    });
    const results = Promise.all([probes.ready(), probes.ready(), probes.ready()]);
    await sleep(10);
    answer(1);
    expect((await results).map((result) => result.ok)).toEqual([true, true, true]);
    expect(queries).toBe(1);
    const next = probes.ready();
    await sleep(10);
    answer(2);
    expect(await next).toEqual({ ok: true, reason: 'ready' });
    expect(queries).toBe(2);
  });
});
