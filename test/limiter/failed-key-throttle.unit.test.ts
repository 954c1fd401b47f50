import { describe, expect, it } from 'vitest';
import { FailedKeyThrottle, type PauseBroadcast } from '../../src/limiter/failed-key-throttle.ts';
import { MemoryRateLimiter } from '../../src/limiter/memory-limiter.ts';

/** A broadcast that records what is published and lets the test announce pauses. */
function recordingBroadcast() {
  const published: Array<[string, number]> = [];
  let listener: ((address: string, ms: number) => void) | null = null;
  const broadcast: PauseBroadcast = {
    publish: (address, ms) => published.push([address, ms]),
    listen: (next) => {
      listener = next;
    },
    close: async () => {},
  };
  return { broadcast, published, announce: (address: string, ms: number) => listener?.(address, ms) };
}

describe('FailedKeyThrottle', () => {
  it('pauses an address once its failures fill the window, until the oldest leaves it, and says so once', async () => {
    const { broadcast, published } = recordingBroadcast();
    const throttle = new FailedKeyThrottle({
      failures: new MemoryRateLimiter({ windowMs: 60_000 }),
      broadcast,
    });
    expect(throttle.fail('203.0.113.7', 3, 0)).toMatchObject({ allowed: true, remaining: 2 });
    expect(throttle.fail('203.0.113.7', 3, 10_000)).toMatchObject({ allowed: true, remaining: 1 });
    expect(throttle.pausedSeconds('203.0.113.7', 10_000)).toBe(0);
    expect(throttle.fail('203.0.113.7', 3, 20_000)).toMatchObject({ allowed: true, remaining: 0 });
    // The first failure leaves the window at 60 s.
    expect(throttle.pausedSeconds('203.0.113.7', 20_000)).toBe(40);
    expect(throttle.pausedSeconds('198.51.100.2', 20_000)).toBe(0);
    expect(published).toEqual([['203.0.113.7', 40_000]]);
    expect(throttle.pausedSeconds('203.0.113.7', 59_999)).toBe(1);
    expect(throttle.pausedSeconds('203.0.113.7', 60_000)).toBe(0);
    await throttle.close();
  });

  it('pauses on a failure refused because the window is full, without announcing it again', async () => {
    const { broadcast, published } = recordingBroadcast();
    const failures = new MemoryRateLimiter({ windowMs: 60_000 });
    // Another instance filled the window (the shared count), and its announcement has not arrived.
    failures.take('203.0.113.7', 1, 0);
    const throttle = new FailedKeyThrottle({ failures, broadcast });
    expect(throttle.pausedSeconds('203.0.113.7', 5_000)).toBe(0);
    expect(throttle.fail('203.0.113.7', 1, 5_000)).toMatchObject({ allowed: false, retryAfterSeconds: 55 });
    expect(throttle.pausedSeconds('203.0.113.7', 5_000)).toBe(55);
    expect(published).toEqual([]);
    await throttle.close();
  });

  it('applies the pauses other instances announce, as durations on its own clock', async () => {
    const { broadcast, announce } = recordingBroadcast();
    let now = 1_000_000;
    const throttle = new FailedKeyThrottle({
      failures: new MemoryRateLimiter({ windowMs: 60_000 }),
      broadcast,
      clock: () => now,
    });
    announce('2001:db8::1', 30_000);
    expect(throttle.pausedSeconds('2001:db8::1', now)).toBe(30);
    // A shorter announcement never shortens a pause in force.
    announce('2001:db8::1', 5_000);
    expect(throttle.pausedSeconds('2001:db8::1', now)).toBe(30);
    now += 30_000;
    expect(throttle.pausedSeconds('2001:db8::1', now)).toBe(0);
    await throttle.close();
  });

  it('remembers at most maxAddresses pauses, forgetting the earliest first', async () => {
    const { broadcast, announce } = recordingBroadcast();
    const throttle = new FailedKeyThrottle({
      failures: new MemoryRateLimiter({ windowMs: 60_000 }),
      broadcast,
      clock: () => 0,
      maxAddresses: 2,
    });
    announce('a', 10_000);
    announce('b', 10_000);
    announce('c', 10_000);
    expect(['a', 'b', 'c'].map((address) => throttle.pausedSeconds(address, 0))).toEqual([0, 10, 10]);
    await throttle.close();
  });
});
