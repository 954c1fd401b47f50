import { describe, expect, it, onTestFinished } from 'vitest';
import { openPool, targetOf } from '../../../src/store/postgres/pool.ts';
import { createTestDatabase, skipPostgres } from '../../support/postgres.ts';

describe.skipIf(skipPostgres)('openPool (PostgreSQL connections)', () => {
  it('never opens more connections than NERKH_DATABASE_POOL_SIZE, however many queries wait', async () => {
    const pool = openPool({ NERKH_DATABASE_URL: await createTestDatabase(), NERKH_DATABASE_POOL_SIZE: 3 });
    onTestFinished(() => pool.end());
    const sessions = await Promise.all(
      Array.from({ length: 12 }, () =>
        pool.query<{ pid: number; open: number }>(
          `SELECT pg_backend_pid() AS pid,
                  (SELECT count(*)::integer FROM pg_stat_activity
                    WHERE datname = current_database() AND application_name = 'nerkh') AS open,
                  pg_sleep(0.05)`,
        ),
      ),
    );
    const rows = sessions.map((result) => result.rows[0]);
    expect(new Set(rows.map((row) => row?.pid)).size).toBe(3);
    expect(Math.max(...rows.map((row) => row?.open ?? 0))).toBe(3);
  });

  it('names its sessions nerkh and bounds how long a statement may run', async () => {
    const pool = openPool({ NERKH_DATABASE_URL: await createTestDatabase(), NERKH_DATABASE_POOL_SIZE: 1 });
    onTestFinished(() => pool.end());
    const { rows } = await pool.query(
      "SELECT current_setting('application_name') AS name, current_setting('statement_timeout') AS timeout",
    );
    expect(rows[0]).toEqual({ name: 'nerkh', timeout: '10s' });
  });
});

describe('targetOf', () => {
  it('names the server and database of a URL without its user or password', () => {
    expect(targetOf('postgres://nerkh:s3cret@db.internal:5433/rates?sslmode=require')).toBe(
      'db.internal:5433/rates',
    );
  });
});
