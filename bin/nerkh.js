#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-semi-space-size=2 --heap-growing-percent=20 --no-memory-reducer --single-threaded-gc
// Node flags (docs/decisions/0022-v8-flags-for-a-small-steady-heap.md). For a small, steady
// footprint: the young generation is held to 2 × 2 MB (V8 lets it grow to 3 × 16 MB), where a
// request's objects die either way, and the old generation grows by 20 % between full collections
// instead of up to 4×, so garbage promoted under load is collected before it doubles the heap;
// throughput measured the same. For the same speed after a pause: V8's memory reducer collects the
// whole heap while the process is idle, which discards the optimized code of node:http's request
// path (its maps are gone when no request is in flight), and the code optimized again afterwards
// served fewer requests.
// --single-threaded-gc: V8 collects on the main thread alone, marking the old generation in steps
// between requests. An API instance is sized per core (docs/deployment.md), and on that core V8's
// helper threads only take turns with the main thread, which waits for them: without them a full
// collection's last pause and the p99 are far shorter, for a little more peak memory.
// MALLOC_ARENA_MAX=2 holds glibc's malloc to two arenas: by default each thread that allocates
// (V8's compiler and GC helpers, libuv's pool) may get an arena of its own, and the pages they keep
// count in the resident set, at the same throughput (docs/decisions/0024-two-malloc-arenas.md;
// musl ignores it). Run as `node bin/nerkh.js`, neither the variable nor the flags are applied: set
// and pass them yourself. The first line is longer than 127 bytes, which Linux reads whole since
// 5.1 (older kernels cut it, and node refuses the cut flag).
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
