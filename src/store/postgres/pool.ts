import pg from 'pg';
import type { Config } from '../../config.ts';

/** What opening PostgreSQL needs: the URL (required here) and the pool bound. */
export type PostgresSettings = Pick<Config, 'NERKH_DATABASE_POOL_SIZE'> & { NERKH_DATABASE_URL: string };

/** Longest a statement may run before PostgreSQL cancels it: nothing nerkh asks takes near this. */
const statementTimeoutMs = 10_000;

/**
 * Settings of every connection nerkh opens, pooled or dedicated (a migrator holds one for its
 * whole run). `application_name` lets an operator find nerkh's sessions in `pg_stat_activity`.
 */
export function clientConfigOf(url: string): pg.ClientConfig {
  return {
    connectionString: url,
    application_name: 'nerkh',
    statement_timeout: statementTimeoutMs,
    // The server cannot cancel a statement it never received: when the network to PostgreSQL is
    // cut, this bound on the client's side ends the wait instead.
    query_timeout: statementTimeoutMs + 5_000,
    connectionTimeoutMillis: 5_000,
    // TCP keepalives notice a peer that vanished without closing the socket (a cut network).
    keepAlive: true,
  };
}

/**
 * A bounded pool: at most NERKH_DATABASE_POOL_SIZE connections per process, further queries wait
 * for a free one (or fail after connectionTimeoutMillis), so N instances open at most N × size.
 */
export function openPool(settings: PostgresSettings): pg.Pool {
  const pool = new pg.Pool({
    ...clientConfigOf(settings.NERKH_DATABASE_URL),
    max: settings.NERKH_DATABASE_POOL_SIZE,
    idleTimeoutMillis: 30_000,
  });
  // An idle connection broke (PostgreSQL restarted, a proxy closed it): the pool has already
  // dropped it and the next query opens a new one. Without a listener Node would end the process.
  pool.on('error', () => {});
  return pool;
}

/** The server and database of a URL, without user or password, for messages an operator reads. */
export function targetOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.host}${parsed.pathname}`;
  } catch {
    return 'NERKH_DATABASE_URL';
  }
}

/** One line saying why a PostgreSQL call failed (some socket errors carry an empty message). */
export function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return error.message || (typeof code === 'string' ? code : error.name);
}
