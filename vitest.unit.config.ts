import { defineConfig } from 'vitest/config';
import { shared } from './vitest.config.ts';

/**
 * `npm run test:unit`: the quick loop while working, every `*.unit.test.ts`. A unit test starts
 * no process (test/support/unit-guard.ts makes starting one fail), needs no browser, PostgreSQL or
 * Redis, and opens no socket but loopback servers inside its own process; everything else is named
 * `*.test.ts` and runs in `npm test`, which runs both.
 */
export default defineConfig({
  test: {
    ...shared,
    include: ['test/**/*.unit.test.ts'],
    setupFiles: ['test/support/unit-guard.ts'],
    // One module cache per worker, shared by the files it runs: most of a file's time was spent
    // importing the same modules again (npm test keeps every file isolated).
    isolate: false,
  },
});
