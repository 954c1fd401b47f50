import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { openLimiter } from '../../src/limiter/open-limiter.ts';
import { createLogger } from '../../src/logger.ts';

describe('openLimiter', () => {
  it('limits over NERKH_RATE_WINDOW_SECONDS, counting requests and failed keys apart', async () => {
    const limiters = await openLimiter(
      loadConfig({ NERKH_RATE_WINDOW_SECONDS: '10' }),
      createLogger('silent'),
    );
    try {
      expect((await limiters.requests.take('client', 1, 0)).allowed).toBe(true);
      expect((await limiters.requests.take('client', 1, 9_999)).allowed).toBe(false);
      // The failed-key limit is a separate count, even for the same name.
      expect((await limiters.failedKeys.fail('client', 1, 9_999)).allowed).toBe(true);
      expect((await limiters.requests.take('client', 1, 10_000)).allowed).toBe(true);
    } finally {
      await limiters.close();
    }
  });

  it('shares the limits through NERKH_REDIS_URL, starting local when Redis does not answer', async () => {
    const config = loadConfig({ NERKH_REDIS_URL: 'redis://127.0.0.1:1', LOG_LEVEL: 'silent' });
    const limiters = await openLimiter(config, createLogger('silent'));
    try {
      // No Redis on port 1: decisions come from memory, exact for this process, and never fail.
      expect((await limiters.requests.take('client', 1, Date.now())).allowed).toBe(true);
      expect((await limiters.requests.take('client', 1, Date.now())).allowed).toBe(false);
    } finally {
      await limiters.close();
    }
  });
});
