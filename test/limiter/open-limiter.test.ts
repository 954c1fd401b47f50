import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { openLimiter } from '../../src/limiter/open-limiter.ts';

describe('openLimiter', () => {
  it('limits over NERKH_RATE_WINDOW_SECONDS, counting requests and failed keys apart', async () => {
    const limiters = await openLimiter(loadConfig({ NERKH_RATE_WINDOW_SECONDS: '10' }));
    try {
      expect((await limiters.requests.take('client', 1, 0)).allowed).toBe(true);
      expect((await limiters.requests.take('client', 1, 9_999)).allowed).toBe(false);
      // The failed-key limit is a separate count, even for the same name.
      expect((await limiters.failedKeys.take('client', 1, 9_999)).allowed).toBe(true);
      expect((await limiters.requests.take('client', 1, 10_000)).allowed).toBe(true);
    } finally {
      await limiters.close();
    }
  });

  it('refuses NERKH_REDIS_URL, which this build cannot use, with a reason naming it', async () => {
    const opening = openLimiter(loadConfig({ NERKH_REDIS_URL: 'redis://cache.example:6379' }));
    await expect(opening).rejects.toThrow(ConfigError);
    await expect(opening).rejects.toThrow(
      /^NERKH_REDIS_URL is set, but this build of nerkh has no Redis limiter yet; unset it/,
    );
  });
});
