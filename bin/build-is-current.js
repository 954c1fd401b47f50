import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Where `npm run build` writes the bundle: the sources and their dependencies in one file. */
const bundlePath = (root) => join(root, 'dist', 'nerkh.js');

/**
 * Latest modification time of the `.ts` files under `dir` (declaration files change no code); 0
 * when there are none, as in the image, which ships the bundle without the TypeScript sources.
 */
function newestSource(dir) {
  let newest = 0;
  if (!existsSync(dir)) return newest;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
      newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * True when the project under `root` has a bundle no older than any source file and than
 * package-lock.json (the bundle holds the dependencies too). A build that predates an edit or a
 * dependency change is never run: the bin falls back to the sources, so what runs is always what
 * the sources say.
 * @param {string} root
 * @returns {boolean}
 */
export function buildIsCurrent(root) {
  const built = statSync(bundlePath(root), { throwIfNoEntry: false });
  if (built === undefined) return false;
  const lock = statSync(join(root, 'package-lock.json'), { throwIfNoEntry: false });
  return built.mtimeMs >= Math.max(newestSource(join(root, 'src')), lock?.mtimeMs ?? 0);
}
