#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-semi-space-size=2 --heap-growing-percent=20 --no-memory-reducer
// Node flags (docs/decisions/0022-v8-flags-for-a-small-steady-heap.md). For a small, steady
// footprint: the young generation is held to 2 × 2 MB (V8 lets it grow to 3 × 16 MB), where a
// request's objects die either way, and the old generation grows by 20 % between full collections
// instead of up to 4×, so garbage promoted under load is collected before it doubles the heap;
// throughput measured the same. For the same speed after a pause: V8's memory reducer collects the
// whole heap while the process is idle, which discards the optimized code of node:http's request
// path (its maps are gone when no request is in flight), and the code optimized again afterwards
// served fewer requests.
// No --single-threaded-gc: on Node 20 it shortened the p99, but on Node 24 (V8 13.6), with it,
// every young collection promoted what it found, and a full collection ran every 200 ms (80 in
// 15 s of load, a quarter of the time): half the requests a second (docs/decisions/0040-gc-helper-threads-for-node-24.md).
// MALLOC_ARENA_MAX=2 holds glibc's malloc to two arenas: by default each thread that allocates
// (V8's compiler and GC helpers, libuv's pool) may get an arena of its own, and the pages they keep
// count in the resident set, at the same throughput (docs/decisions/0024-two-malloc-arenas.md;
// musl ignores it). Run as `node bin/nerkh.js`, neither the variable nor the flags are applied: set
// and pass them yourself.
// Runs the bundled build (`npm run build` → dist/nerkh.js) when it is current: it starts faster and
// in less memory than compiling TypeScript on start (docs/decisions/0028-one-production-bundle.md).
// Otherwise (a fresh clone, or sources or dependencies changed since the last build) it runs the
// TypeScript sources through tsx's loader, so the bin needs no build step and never runs stale code.
import { fileURLToPath } from 'node:url';
import { buildIsCurrent } from './build-is-current.js';

if (buildIsCurrent(fileURLToPath(new URL('..', import.meta.url)))) {
  await import('../dist/nerkh.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}
