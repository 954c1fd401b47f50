import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import pg from 'pg';
import { runOnServer } from '../../test/support/postgres-statement.ts';
import type { Teardown } from './rig.ts';

/** The machine's PostgreSQL (NERKH_TEST_DATABASE_URL, as the tests use, or 127.0.0.1:5432 as postgres). */
export const serverUrl = process.env.NERKH_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

function onServer(sql: string): Promise<void> {
  return runOnServer(serverUrl, sql, 5000);
}

/** Why PostgreSQL cannot be used, or null when it answers. */
export async function postgresUnreachable(): Promise<string | null> {
  try {
    await onServer('SELECT 1');
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/** A database of the drill's own on the server, dropped at teardown; returns its URL. */
export async function createDrillDatabase(teardown: Teardown): Promise<string> {
  const name = `nerkh_drill_${process.pid}_${randomBytes(4).toString('hex')}`;
  await onServer(`CREATE DATABASE ${name}`);
  teardown(() => onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The same database reached through another port on this host (a proxy in front of the server). */
export function throughPort(url: string, port: number): string {
  const proxied = new URL(url);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(port);
  return proxied.toString();
}

/**
 * Connections to the drill's database for checking what is stored, closed at teardown. A pool,
 * so a check after PostgreSQL restarted opens a new connection instead of failing on the old one.
 */
export function inspector(url: string, teardown: Teardown): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  pool.on('error', () => {});
  teardown(() => pool.end());
  return pool;
}

/**
 * Restarts the machine's PostgreSQL cluster (Debian's `pg_ctlcluster`), down for `downMs` between
 * the stop and the start: every process on the machine using it sees the outage, so only the long
 * drill does this, never the tests. A bare `restart` can be over before a health read lands in it.
 */
export async function restartPostgres(downMs: number): Promise<void> {
  const [version] = readdirSync('/etc/postgresql');
  if (version === undefined) throw new Error('no cluster under /etc/postgresql');
  const cluster = (action: 'stop' | 'start') =>
    new Promise<void>((resolve, reject) => {
      execFile(
        'pg_ctlcluster',
        ['--skip-systemctl-redirect', version, 'main', action],
        (error, _stdout, stderr) =>
          error ? reject(new Error(`pg_ctlcluster ${action}: ${error.message} ${stderr}`)) : resolve(),
      );
    });
  await cluster('stop');
  try {
    await new Promise((resolve) => setTimeout(resolve, downMs));
  } finally {
    await cluster('start');
  }
}
