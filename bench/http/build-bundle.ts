import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { buildIsCurrent } from '../../bin/build-is-current.js';

const projectRoot = join(import.meta.dirname, '..', '..');

/**
 * The production build, as a deployment makes it (docs/deployment.md#the-production-build);
 * bin/nerkh.js runs it. A bundle older than the sources would make the bin run them through tsx.
 */
export function buildBundle(): void {
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: projectRoot, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`npm run build failed:\n${build.stdout}${build.stderr}`);
  if (!buildIsCurrent(projectRoot)) {
    throw new Error('dist/nerkh.js is not current after npm run build; nerkh would run from the sources');
  }
}
