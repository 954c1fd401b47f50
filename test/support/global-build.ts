import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { projectRoot } from '../../src/project-root.ts';

/**
 * vitest's global set-up: builds the production bundle (`npm run build` → dist/nerkh.js) before
 * any test runs, so every test that starts `bin/nerkh.js` as an operator would runs what
 * production runs, the bundle, since the bin runs it whenever it is current
 * (docs/decisions/0028-one-production-bundle.md). Without it each such process would compile the
 * TypeScript sources through tsx, and load them module by module, before doing anything. The bin's
 * fall-back to the sources has tests of its own (test/bin/build-is-current.test.ts).
 */
export default async function buildTheBundle(): Promise<void> {
  await promisify(execFile)('npm', ['run', 'build'], { cwd: projectRoot });
}
