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

describe('buildIsCurrent (which code bin/nerkh.js runs)', () => {
  it('is true when every source has a compiled file at least as new', () => {
    root = mkdtempSync(join(tmpdir(), 'nerkh-build-'));
    file('src/cli/main.ts', 1000);
    file('src/http/app.ts', 1000);
    file('src/types.d.ts', 5000);
    file('dist/cli/main.js', 1000);
    file('dist/http/app.js', 2000);
    expect(buildIsCurrent(join(root, 'src'), join(root, 'dist'))).toBe(true);
  });

  it('is false when a source was edited after the build', () => {
    root = mkdtempSync(join(tmpdir(), 'nerkh-build-'));
    file('src/cli/main.ts', 1000);
    file('src/http/app.ts', 3000);
    file('dist/cli/main.js', 2000);
    file('dist/http/app.js', 2000);
    expect(buildIsCurrent(join(root, 'src'), join(root, 'dist'))).toBe(false);
  });

  it('is false when a source was added after the build', () => {
    root = mkdtempSync(join(tmpdir(), 'nerkh-build-'));
    file('src/cli/main.ts', 1000);
    file('src/http/new-route.ts', 1000);
    file('dist/cli/main.js', 2000);
    expect(buildIsCurrent(join(root, 'src'), join(root, 'dist'))).toBe(false);
  });
});
