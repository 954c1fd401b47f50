import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const projectRoot = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a script as its npm script does (tsx), with `args`; never with arguments that would start its work. */
async function script(path: string, args: string[]): Promise<Ran> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', path, ...args], {
      cwd: projectRoot,
      timeout: 30_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as Ran;
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const stackLine = /\n\s+at /;

// Each test starts one or two scripts through tsx, which compiles and loads their modules first:
// seconds on an idle machine, far more under load.
describe('the repository scripts read their command line as commands do', { timeout: 60_000 }, () => {
  it.each([
    ['bench/http.ts', 'npm run bench'],
    ['bench/collector.ts', 'npm run bench:collector'],
    ['bench/redis-limiter.ts', 'npm run bench:redis-limiter'],
    ['scripts/client-contract.ts', 'npm run contract'],
  ])(
    '%s: --help prints the usage and does nothing else; an unknown option is refused with the usage',
    async (path, usage) => {
      const help = await script(path, ['--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(`Usage: ${usage}`);
      expect(help.stdout).not.toMatch(/^wrote /m);
      expect(help.stderr).toBe('');

      const unknown = await script(path, ['--no-such-option']);
      expect(unknown.code).toBe(2);
      expect(unknown.stdout).toBe('');
      expect(unknown.stderr).toContain("Unknown option '--no-such-option'");
      expect(unknown.stderr).toContain(`Usage: ${usage}`);
      expect(unknown.stderr).not.toMatch(stackLine);
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
    const refused = await script('bench/http.ts', args);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`bench: ${message}`);
    expect(refused.stderr).not.toMatch(stackLine);
  });

  it('npm run bench:redis-limiter refuses a duration that is not a positive number', async () => {
    const refused = await script('bench/redis-limiter.ts', ['--seconds=-1']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('bench:redis-limiter: --seconds must be a positive number, not "-1"');
  });
});
