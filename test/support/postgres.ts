import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { onTestFinished } from 'vitest';
import { reasonOf } from '../../src/store/postgres/pool.ts';
import { runOnServer } from './postgres-statement.ts';

/**
 * The PostgreSQL server the tests use: NERKH_TEST_DATABASE_URL (any database on it whose user may
 * create databases), else the machine's own on 127.0.0.1:5432 as user postgres. Each test creates
 * its own database there and drops it when it ends. When no server answers the tests skip with a
 * printed reason, unless NERKH_REQUIRE_POSTGRES=1 (as in CI) or the URL was given: then they fail.
 */
const givenUrl = process.env.NERKH_TEST_DATABASE_URL;
const serverUrl = givenUrl ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const required = process.env.NERKH_REQUIRE_POSTGRES === '1' || givenUrl !== undefined;

async function reachFailure(): Promise<string | null> {
  const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 3_000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (error) {
    return reasonOf(error);
  } finally {
    await client.end().catch(() => {});
  }
}

const unreachable = await reachFailure();

/** True when the PostgreSQL tests are to be skipped (no server, and none required). */
export const skipPostgres = unreachable !== null && !required;
if (skipPostgres) {
  process.stdout.write(
    `PostgreSQL tests skipped: no server answers on 127.0.0.1:5432 (${unreachable}); start one or set NERKH_TEST_DATABASE_URL\n`,
  );
}

function onServer(sql: string): Promise<void> {
  return runOnServer(serverUrl, sql, 3_000);
}

/**
 * Creates an empty database for the current test, registers its removal when the test finishes
 * (before the test asserts anything), and returns its URL.
 */
export async function createTestDatabase(): Promise<string> {
  if (unreachable !== null) {
    const why = givenUrl === undefined ? 'NERKH_REQUIRE_POSTGRES=1' : 'NERKH_TEST_DATABASE_URL is set';
    throw new Error(`PostgreSQL is required (${why}) but does not answer: ${unreachable}`);
  }
  const name = `nerkh_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  await onServer(`CREATE DATABASE ${name}`);
  // FORCE ends sessions a failed test left open, so the database never outlives the run.
  onTestFinished(() => onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
