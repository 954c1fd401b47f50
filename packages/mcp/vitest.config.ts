import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The tests run the client from its sources (as tsconfig.json's `paths` type-check it), so they
 * need no build; the published package exports built files only.
 */
const clientSource = (path: string) => fileURLToPath(new URL(`../client/src/${path}`, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^@nerkh\/client$/, replacement: clientSource('index.ts') },
      { find: /^@nerkh\/client\/openapi\.json$/, replacement: clientSource('generated/openapi.json') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
