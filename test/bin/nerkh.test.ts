import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { binPath } from '../support/run-cli.ts';

const execFileAsync = promisify(execFile);

/** Printed by node before the bin runs: what its first line set for the process. */
const probe =
  'data:text/javascript,console.log(JSON.stringify({arenas:process.env.MALLOC_ARENA_MAX,flags:process.execArgv}))';

describe('bin/nerkh.js run as a command', () => {
  it('starts node with two malloc arenas and the memory and collection flags docs/deployment.md "Node flags" names', async () => {
    const { stdout } = await execFileAsync(binPath, ['--help'], {
      env: { ...process.env, NODE_OPTIONS: `--import=${probe}` },
    });
    const started = JSON.parse(stdout.split('\n', 1)[0] as string) as { arenas?: string; flags: string[] };
    expect(started.arenas).toBe('2');
    expect(started.flags).toEqual([
      '--max-semi-space-size=2',
      '--heap-growing-percent=20',
      '--no-memory-reducer',
    ]);
    expect(stdout).toContain('Usage: nerkh');
  });
});
