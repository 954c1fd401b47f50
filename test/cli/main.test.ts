import { describe, expect, it } from 'vitest';
import packageJson from '../../package.json' with { type: 'json' };
import { runCli } from '../support/run-cli.ts';

describe('nerkh', () => {
  it('prints its version, the releaseId /v1/health reports, with --version and -V', async () => {
    for (const flag of ['--version', '-V']) {
      const result = await runCli([flag], {});
      expect(result).toEqual({ code: 0, stdout: `${packageJson.version}\n`, stderr: '' });
    }
  });

  it('names --version in its help', async () => {
    const result = await runCli(['--help'], {});
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/-V, --version\s+print the version of nerkh/);
  });
});
