import { configDefaults, defineConfig } from 'vitest/config';
import { shared } from './vitest.config.ts';

/**
 * `npm run test:unit`: the quick loop while working. No browser, no drills, no PostgreSQL or Redis
 * (their tests skip, saying so), and none of the tests that start nerkh or other programs as real
 * processes. `npm test` runs everything.
 */
export default defineConfig({
  test: {
    ...shared,
    include: ['test/**/*.test.ts'],
    exclude: [
      ...configDefaults.exclude,
      // Chromium, the drills and the bench's own tests.
      'test/browser/**',
      'test/drills/**',
      'test/bench/**',
      // PostgreSQL and Redis only.
      'test/store/postgres/**',
      'test/limiter/redis-limiter.test.ts',
      'test/limiter/redis/**',
      'test/limiter/open-redis-limiters.test.ts',
      // Real processes: the command line, the bin, a service with its listeners, crashes.
      'test/cli/**',
      'test/bin/**',
      'test/scripts/**',
      'test/scale-out.test.ts',
      'test/service.test.ts',
      'test/log-hygiene.test.ts',
      'test/logger.test.ts',
      'test/metrics/metrics-listener.test.ts',
      'test/http/server.test.ts',
      // Python's pytest, mypy and a wheel build, against nerkh apps of their own.
      'test/packages/python-client.test.ts',
      'test/store/sqlite/crash.test.ts',
    ],
    env: { NERKH_TEST_UNIT: '1' },
    // One module cache per worker, shared by the files it runs: most of a file's time was spent
    // importing the same modules again (npm test keeps every file isolated).
    isolate: false,
  },
});
