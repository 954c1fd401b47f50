import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * True when `distDir` holds a compiled `.js` for every `.ts` under `srcDir`, none older than its
 * source. A build that misses a file, or predates an edit, is never run: the bin falls back to the
 * sources, so what runs is always what the sources say.
 * @param {string} srcDir
 * @param {string} distDir
 * @returns {boolean}
 */
export function buildIsCurrent(srcDir, distDir) {
  for (const entry of readdirSync(srcDir, { withFileTypes: true })) {
    const source = join(srcDir, entry.name);
    if (entry.isDirectory()) {
      if (!buildIsCurrent(source, join(distDir, entry.name))) return false;
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
      const built = statSync(join(distDir, `${entry.name.slice(0, -3)}.js`), { throwIfNoEntry: false });
      if (built === undefined || built.mtimeMs < statSync(source).mtimeMs) return false;
    }
  }
  return true;
}
