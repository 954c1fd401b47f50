import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildIsCurrent } from '../../bin/build-is-current.js';

let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Writes `path` under root with the given modification time (seconds since the epoch). */
function file(path: string, mtime: number): void {
  const full = join(root, path);
  mkdirSync(join(full, '..'), { recursive: true });
  writeFileSync(full, '');
  utimesSync(full, mtime, mtime);
}

function project(sources: Record<string, number>, lock: number): void {
  root = mkdtempSync(join(tmpdir(), 'nerkh-build-'));
  for (const [path, mtime] of Object.entries(sources)) file(path, mtime);
  file('package-lock.json', lock);
}

describe('buildIsCurrent (which code bin/nerkh.js runs)', () => {
  it('is true when the bundle is at least as new as every source and the lock file', () => {
    project({ 'src/cli/main.ts': 1000, 'src/http/app.ts': 2000, 'src/types.d.ts': 5000 }, 1500);
    file('dist/nerkh.js', 2000);
    expect(buildIsCurrent(root)).toBe(true);
  });

  it('is false when a source was edited after the build', () => {
    project({ 'src/cli/main.ts': 1000, 'src/http/app.ts': 3000 }, 1000);
    file('dist/nerkh.js', 2000);
    expect(buildIsCurrent(root)).toBe(false);
  });

  it('is false when the dependencies changed after the build (they are bundled too)', () => {
    project({ 'src/cli/main.ts': 1000 }, 3000);
    file('dist/nerkh.js', 2000);
    expect(buildIsCurrent(root)).toBe(false);
  });

  it('is true for an install without sources, as the image ships the bundle alone', () => {
    root = mkdtempSync(join(tmpdir(), 'nerkh-build-'));
    file('dist/nerkh.js', 2000);
    expect(buildIsCurrent(root)).toBe(true);
  });

  it('is false when there is no build', () => {
    project({ 'src/cli/main.ts': 1000 }, 1000);
    expect(buildIsCurrent(root)).toBe(false);
  });
});
