import type pg from 'pg';
import { initialSchema } from './migrations/0001-initial-schema.ts';
import { snapshotSource } from './migrations/0002-snapshot-source.ts';
import { collectorLeaseAndChangeNotices } from './migrations/0003-collector-lease-and-change-notices.ts';
import { pricePoints } from './migrations/0004-price-points.ts';
import { apiKeyUsage } from './migrations/0005-api-key-usage.ts';
import { priceAcceptances } from './migrations/0006-price-acceptances.ts';
import type { Migration } from './migrations/types.ts';
import { reasonOf } from './pool.ts';

/** Append-only: each entry is applied once, in order. Never edit a released entry; add a new one. */
export const schemaMigrations: readonly Migration[] = [
  initialSchema,
  snapshotSource,
  collectorLeaseAndChangeNotices,
  pricePoints,
  apiKeyUsage,
  priceAcceptances,
];

/**
 * The advisory lock migrators take, as PostgreSQL's two-key form: nerkh's namespace (the bytes
 * of "nrkh") and 1 for migrations, leaving other numbers in the namespace to other uses.
 */
const lockNamespace = 0x6e726b68;
const migrationsLock = 1;

interface MigrationRun {
  /** The migrations this run applied, in order (empty when the schema was already current). */
  applied: Array<Pick<Migration, 'version' | 'name'>>;
  /** Highest version recorded in schema_migrations after the run. */
  version: number;
}

/**
 * Brings the schema up to date on one connection. Each migration runs in its own transaction
 * that first takes a transaction-level advisory lock and then re-reads schema_migrations, so
 * processes starting together apply every migration exactly once, in order; the lock ends with
 * the transaction, so a migrator that dies never leaves it held. A migration that fails leaves
 * nothing of itself behind, and the ones before it stay applied.
 */
export async function migrate(
  client: pg.ClientBase,
  migrations: readonly Migration[] = schemaMigrations,
): Promise<MigrationRun> {
  const applied: MigrationRun['applied'] = [];
  for (;;) {
    await client.query('BEGIN');
    try {
      // Under the connection's statement timeout: a migration stuck behind other sessions' locks
      // fails whole after it, for the next start or `nerkh migrate` to retry, instead of holding
      // up every query queued behind its own lock.
      await client.query(`SELECT pg_advisory_xact_lock(${lockNamespace}, ${migrationsLock})`);
      const done = await appliedVersions(client);
      const next = migrations.find((migration) => !done.has(migration.version));
      if (next === undefined) {
        await client.query('COMMIT');
        return { applied, version: Math.max(0, ...done) };
      }
      await client.query(next.sql).catch((error: unknown) => {
        throw new Error(`migration ${next.version} (${next.name}) failed: ${reasonOf(error)}`, {
          cause: error,
        });
      });
      await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
        next.version,
        next.name,
      ]);
      await client.query('COMMIT');
      applied.push({ version: next.version, name: next.name });
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    }
  }
}

/**
 * Versions recorded in schema_migrations, creating the table on first use only: when the schema
 * is current nothing here needs more than SELECT, so instances may run as a user without DDL
 * rights once an owner has run `nerkh migrate`.
 */
async function appliedVersions(client: pg.ClientBase): Promise<Set<number>> {
  const { rows } = await client.query<{ name: string | null }>(
    "SELECT to_regclass('schema_migrations')::text AS name",
  );
  if (rows[0]?.name == null) {
    await client.query(
      `CREATE TABLE schema_migrations (
         version integer PRIMARY KEY,
         name text NOT NULL,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    return new Set();
  }
  const applied = await client.query<{ version: number }>('SELECT version FROM schema_migrations');
  return new Set(applied.rows.map((row) => row.version));
}
