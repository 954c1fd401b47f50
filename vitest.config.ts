import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // vitest's default is one worker fewer than the cores, one on a 2-core machine; most files
    // spend their time waiting on timers, processes and servers, so two overlap that waiting.
    maxWorkers: 2,
    globalSetup: ['test/support/global-build.ts'],
    reporters: ['default', './test/support/plain-summary-reporter.ts'],
  },
});
