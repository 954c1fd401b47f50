import pg from 'pg';

/**
 * Runs one statement (CREATE DATABASE, DROP DATABASE, SELECT 1) on the PostgreSQL server at `url`
 * over a connection of its own, closed afterwards: what the tests' and the drills' database
 * set-up both need.
 */
export async function runOnServer(url: string, sql: string, connectTimeoutMs: number): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: connectTimeoutMs });
  client.on('error', () => {});
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
