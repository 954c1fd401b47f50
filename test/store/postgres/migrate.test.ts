import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { migrate, schemaMigrations } from '../../../src/store/postgres/migrate.ts';
import type { Migration } from '../../../src/store/postgres/migrations/types.ts';
import { clientConfigOf } from '../../../src/store/postgres/pool.ts';
import { createTestDatabase, skipPostgres } from '../../support/postgres.ts';

/** A dedicated connection to the test's database, closed when the test ends. */
async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client(clientConfigOf(url));
  onTestFinished(() => client.end());
  await client.connect();
  return client;
}

async function tables(client: pg.Client): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(
    "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1",
  );
  return rows.map((row) => row.name);
}

async function recorded(client: pg.Client): Promise<Array<{ version: number; name: string }>> {
  const { rows } = await client.query('SELECT version, name FROM schema_migrations ORDER BY version');
  return rows;
}

const storeTables = [
  'api_key_usage',
  'api_keys',
  'api_keys_version',
  'collector_lease',
  'collector_status',
  'key_requests',
  'price_acceptances',
  'price_points',
  'schema_migrations',
  'snapshots',
];

describe.skipIf(skipPostgres)('migrate (PostgreSQL schema migrations)', () => {
  it('applies every migration once, in order, and nothing on a second run', async () => {
    const client = await connect(await createTestDatabase());
    const first = await migrate(client);
    expect(first.version).toBeGreaterThanOrEqual(1);
    expect(first.applied.map((m) => m.version)).toEqual(schemaMigrations.map((m) => m.version));
    expect(first.version).toBe(schemaMigrations.at(-1)?.version);
    expect(await recorded(client)).toEqual(first.applied);
    expect(await tables(client)).toEqual(storeTables);

    const second = await migrate(client);
    expect(second).toEqual({ applied: [], version: first.version });
    expect(await recorded(client)).toEqual(first.applied);
  });

  it('lets four migrators started at once on a fresh database apply each migration exactly once', async () => {
    const url = await createTestDatabase();
    const clients = await Promise.all([1, 2, 3, 4].map(() => connect(url)));
    const runs = await Promise.all(clients.map((client) => migrate(client)));
    const applied = runs.flatMap((run) => run.applied);
    const version = runs[0]?.version ?? 0;
    expect(version).toBeGreaterThanOrEqual(1);
    for (const run of runs) expect(run.version).toBe(version);
    expect(applied.map((m) => m.version).sort((a, b) => a - b)).toEqual(
      schemaMigrations.map((m) => m.version),
    );
    expect(await recorded(clients[0] as pg.Client)).toEqual(applied.sort((a, b) => a.version - b.version));
    expect(await tables(clients[0] as pg.Client)).toEqual(storeTables);
  });

  it('serialises migrators even while a migration is slow, each migration still applied once', async () => {
    const url = await createTestDatabase();
    const slow: Migration[] = [
      { version: 1, name: 'slow', sql: 'SELECT pg_sleep(0.3); CREATE TABLE first_table (id integer)' },
      { version: 2, name: 'second', sql: 'CREATE TABLE second_table (id integer)' },
    ];
    const clients = await Promise.all([1, 2, 3, 4].map(() => connect(url)));
    const runs = await Promise.all(clients.map((client) => migrate(client, slow)));
    expect(runs.flatMap((run) => run.applied.map((m) => m.version)).sort()).toEqual([1, 2]);
    expect(runs.map((run) => run.version)).toEqual([2, 2, 2, 2]);
  });

  it('rolls a failing migration back whole, keeps the ones before it, and names it', async () => {
    const client = await connect(await createTestDatabase());
    const migrations: Migration[] = [
      { version: 1, name: 'good', sql: 'CREATE TABLE good_table (id integer)' },
      {
        version: 2,
        name: 'broken',
        sql: 'CREATE TABLE half_table (id integer); SELECT no_such_column FROM good_table',
      },
    ];
    await expect(migrate(client, migrations)).rejects.toThrow(
      /^migration 2 \(broken\) failed: column "no_such_column" does not exist$/,
    );
    expect(await recorded(client)).toEqual([{ version: 1, name: 'good' }]);
    expect(await tables(client)).toEqual(['good_table', 'schema_migrations']);
    // Fixed and run again, it applies only what is missing.
    const fixed = [
      migrations[0] as Migration,
      { version: 2, name: 'fixed', sql: 'CREATE TABLE half_table (id integer)' },
    ];
    expect(await migrate(client, fixed)).toEqual({ applied: [{ version: 2, name: 'fixed' }], version: 2 });
  });

  it('needs no DDL rights once the schema is current, so instances may run as a restricted user', async () => {
    const url = await createTestDatabase();
    await migrate(await connect(url));
    const role = `nerkh_app_${process.pid}_${Date.now()}`;
    const owner = await connect(url);
    // Stack order: this runs before the database is dropped (registered after it was created).
    onTestFinished(async () => {
      await owner.query(`DROP OWNED BY ${role}; DROP ROLE ${role}`);
    });
    await owner.query(
      `REVOKE CREATE ON SCHEMA public FROM PUBLIC;
       CREATE ROLE ${role} LOGIN;
       GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${role};
       GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO ${role};`,
    );
    const restricted = new URL(url);
    restricted.username = role;
    const app = await connect(restricted.toString());
    await expect(app.query('CREATE TABLE probe (id integer)')).rejects.toThrow(/permission denied/);
    expect((await migrate(app)).applied).toEqual([]);
  });
});
