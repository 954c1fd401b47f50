import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { migrate } from '../../../../src/store/postgres/migrate.ts';
import { initialSchema } from '../../../../src/store/postgres/migrations/0001-initial-schema.ts';
import { snapshotSource } from '../../../../src/store/postgres/migrations/0002-snapshot-source.ts';
import { clientConfigOf } from '../../../../src/store/postgres/pool.ts';
import { createTestDatabase, skipPostgres } from '../../../support/postgres.ts';

describe.skipIf(skipPostgres)('migration 2: the snapshot source label', () => {
  it('labels the snapshots stored before it binance+nobitex, the only set-up there was, and keeps no default', async () => {
    const client = new pg.Client(clientConfigOf(await createTestDatabase()));
    onTestFinished(() => client.end());
    await client.connect();
    await migrate(client, [initialSchema]);
    await client.query(`INSERT INTO snapshots (updated_at, usdt_irt, rates) VALUES (now(), 105299, '[]')`);

    expect(await migrate(client, [initialSchema, snapshotSource])).toEqual({
      applied: [{ version: 2, name: 'snapshot source label' }],
      version: 2,
    });
    const { rows } = await client.query<{ source: string }>('SELECT source FROM snapshots');
    expect(rows).toEqual([{ source: 'binance+nobitex' }]);
    await expect(
      client.query(`INSERT INTO snapshots (updated_at, usdt_irt, rates) VALUES (now(), 105299, '[]')`),
    ).rejects.toThrow(/null value in column "source"/);
  });
});
