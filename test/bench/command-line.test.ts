import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const projectRoot = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);

/** Runs a bench script as `npm run bench…` does (tsx), with `args`; never starts a load run here. */
async function bench(
  script: string,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ['--import', 'tsx', join('bench', script), ...args],
      {
        cwd: projectRoot,
        timeout: 30_000,
      },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('the benches read their command line as commands do', () => {
  it.each([
    ['http.ts', 'npm run bench'],
    ['collector.ts', 'npm run bench:collector'],
    ['redis-limiter.ts', 'npm run bench:redis-limiter'],
  ])(
    '%s: --help prints the usage and runs nothing; an unknown option is refused with the usage',
    async (script, usage) => {
      const help = await bench(script, ['--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(`Usage: ${usage}`);
      expect(help.stderr).toBe('');

      const unknown = await bench(script, ['--no-such-option']);
      expect(unknown.code).toBe(2);
      expect(unknown.stdout).toBe('');
      expect(unknown.stderr).toContain("Unknown option '--no-such-option'");
      expect(unknown.stderr).toContain(`Usage: ${usage}`);
      expect(unknown.stderr).not.toMatch(/\n\s+at /);
    },
  );

  it.each([
    [['--rounds', '0'], '--rounds must be a whole number ≥ 1, not "0"'],
    [['--seconds', 'eight'], '--seconds must be a whole number ≥ 1, not "eight"'],
    [
      ['--only', 'base,nginx'],
      '--only: unknown part "nginx"; the parts are base, redis, peers, burst, outage',
    ],
  ])('npm run bench %j is refused before anything starts: %s', async (args, message) => {
    const refused = await bench('http.ts', args);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`bench: ${message}`);
    expect(refused.stderr).not.toMatch(/\n\s+at /);
  });

  it('npm run bench:redis-limiter refuses a duration that is not a positive number', async () => {
    const refused = await bench('redis-limiter.ts', ['--seconds=-1']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('bench:redis-limiter: --seconds must be a positive number, not "-1"');
  });
});
