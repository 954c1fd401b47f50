#!/usr/bin/env -S node --max-semi-space-size=2
// The young generation is held to 2 × 2 MB (V8's default lets it grow to 3 × 16 MB): a request's
// objects die within it either way, the service's memory stays about 20 MB smaller under load,
// and throughput measured the same (README "Performance"). Run as `node bin/nerkh.js`, the flag
// is not applied; pass it to node yourself.
// Runs the bundled build (`npm run build` → dist/nerkh.js) when it is current: it starts in about
// half the time and memory of compiling TypeScript on start. Otherwise (a fresh clone, or sources
// or dependencies changed since the last build) it runs the TypeScript sources through tsx's
// loader, so the bin needs no build step and never runs stale code.
import { fileURLToPath } from 'node:url';
import { buildIsCurrent } from './build-is-current.js';

if (buildIsCurrent(fileURLToPath(new URL('..', import.meta.url)))) {
  await import('../dist/nerkh.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}
