import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['nerkh-source'] },
  ssr: { resolve: { conditions: ['nerkh-source'] } },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
