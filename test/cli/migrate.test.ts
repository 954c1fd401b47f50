import { describe, expect, it } from 'vitest';
import { createTestDatabase, skipPostgres } from '../support/postgres.ts';
import { runCli } from '../support/run-cli.ts';

describe('nerkh migrate', () => {
  it.skipIf(skipPostgres)('applies the schema once and says so, then finds nothing to apply', async () => {
    const url = await createTestDatabase();
    const first = await runCli(['migrate'], { NERKH_DATABASE_URL: url });
    expect(first).toMatchObject({ code: 0, stderr: '' });
    const lines = first.stdout.trim().split('\n');
    expect(lines[0]).toBe('Applied migration 1: initial schema.');
    expect(lines.at(-1)).toMatch(
      /^PostgreSQL at 127\.0\.0\.1:5432\/nerkh_test_\w+ is now at schema version \d+\.$/,
    );

    const second = await runCli(['migrate'], { NERKH_DATABASE_URL: url });
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/^Nothing to apply: PostgreSQL at \S+ is at schema version \d+\.\n$/);
  });

  it('exits non-zero with one line when the server cannot be reached, without the password', async () => {
    const result = await runCli(['migrate'], {
      NERKH_DATABASE_URL: 'postgres://nerkh:s3cret@127.0.0.1:1/nerkh',
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'nerkh: cannot migrate PostgreSQL at 127.0.0.1:1/nerkh: connect ECONNREFUSED 127.0.0.1:1\n',
    );
  });

  it('exits non-zero naming NERKH_DATABASE_URL when it is not set', async () => {
    const result = await runCli(['migrate'], { NERKH_DATABASE_URL: '' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^nerkh: NERKH_DATABASE_URL is not set: .*\n$/);
  });
});
