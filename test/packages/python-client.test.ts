import { execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/project-root.ts';

/**
 * The Python client (packages/python): its own pytest suite, run by Debian's Python. It starts
 * real nerkh apps through test/support/nerkh-control.ts, type-checks the package under
 * `mypy --strict`, builds the wheel and the sdist and installs the wheel into a fresh venv.
 * Skipped, saying why, without Python or its Debian packages, unless NERKH_REQUIRE_PYTHON=1 (CI),
 * which makes them fail instead (and makes pytest fail on a tool it lacks rather than skip).
 */
const python = process.env.NERKH_PYTHON ?? '/usr/bin/python3';
const packageDir = join(projectRoot, 'packages', 'python');
const required = process.env.NERKH_REQUIRE_PYTHON === '1';
const debianPackages =
  'python3-httpx python3-pytest python3-mypy python3-build python3-setuptools python3-wheel python3-venv';

const missing = await promisify(execFile)(python, ['-c', 'import httpx, pytest'])
  .then(() => null)
  .catch(() => `${python} with httpx and pytest is not installed (apt-get install ${debianPackages})`);
if (missing && !required) process.stdout.write(`Python client tests skipped: ${missing}\n`);

describe.skipIf(missing !== null && !required)('the Python client (packages/python)', () => {
  it('passes its pytest suite against a real nerkh, mypy --strict and the wheel build', async () => {
    if (missing) throw new Error(`NERKH_REQUIRE_PYTHON=1 but ${missing}`);
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
      // spawn, not execFile: the suite's output is streamed into one string whatever its size.
      const child = spawn(python, ['-m', 'pytest', '-q', '-rs', '-p', 'no:cacheprovider'], {
        cwd: packageDir,
        // No __pycache__ in the checkout.
        env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let text = '';
      child.stdout.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
      });
      child.stderr.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
      });
      child.on('close', (exitCode) => resolve({ code: exitCode, output: text }));
    });
    process.stdout.write(`$ ${python} -m pytest (packages/python)\n${output}`);
    expect(code, output).toBe(0);
    expect(output).toMatch(/\d+ passed/);
    if (required) expect(output).not.toMatch(/\bskipped\b/);
  }, 600_000);
});
