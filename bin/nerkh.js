#!/usr/bin/env node
// Runs the compiled build (`npm run build` → dist/) when it is current: it starts in about half the
// time and memory of compiling TypeScript on start. Otherwise (a fresh clone, or sources edited
// since the last build) it runs the TypeScript sources through tsx's loader, so the bin needs no
// build step and never runs stale code.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildIsCurrent } from './build-is-current.js';

const src = fileURLToPath(new URL('../src', import.meta.url));
const dist = fileURLToPath(new URL('../dist', import.meta.url));

if (existsSync(dist) && buildIsCurrent(src, dist)) {
  await import('../dist/cli/main.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}
