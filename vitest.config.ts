import { configDefaults, defineConfig, type ViteUserConfig } from 'vitest/config';

const lighthouse = 'test/browser/lighthouse.test.ts';

/** What every run shares, `npm run test:unit`'s too (vitest.unit.config.ts). */
export const shared: NonNullable<ViteUserConfig['test']> = {
  testTimeout: 20_000,
  hookTimeout: 30_000,
  pool: 'forks',
  // vitest's default is one worker fewer than the cores, one on a 2-core machine; most files
  // spend their time waiting on timers, processes and servers, so two overlap that waiting.
  maxWorkers: 2,
  reporters: ['default', './test/support/plain-summary-reporter.ts'],
};

export default defineConfig({
  test: {
    ...shared,
    globalSetup: ['test/support/global-build.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'suite',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, lighthouse],
        },
      },
      // Lighthouse runs last and alone: its performance score is the page's main-thread time in
      // Chromium, which test files running beside it on the same cores would inflate.
      { extends: true, test: { name: 'lighthouse', include: [lighthouse], sequence: { groupOrder: 1 } } },
    ],
  },
});
