import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { migrate, schemaMigrations } from '../../../../src/store/postgres/migrate.ts';
import { clientConfigOf } from '../../../../src/store/postgres/pool.ts';
import { createTestDatabase, skipPostgres } from '../../../support/postgres.ts';
import { draftAt } from '../../snapshot-store-contract.ts';

describe.skipIf(skipPostgres)('migration 4: price points', () => {
  it("copies the prices of the snapshots stored before it into the charts' history", async () => {
    const client = new pg.Client(clientConfigOf(await createTestDatabase()));
    onTestFinished(() => client.end());
    await client.connect();
    await migrate(
      client,
      schemaMigrations.filter((migration) => migration.version < 4),
    );
    const draft = draftAt(1, null);
    await client.query(
      `INSERT INTO snapshots (updated_at, source, usdt_irt, rates) VALUES ($1, $2, $3, $4)`,
      [draft.updated_at, draft.source, draft.usdt_irt, JSON.stringify(draft.rates)],
    );

    expect((await migrate(client, schemaMigrations.slice(0, 4))).applied).toEqual([
      { version: 4, name: 'price points' },
    ]);
    const { rows } = await client.query(
      'SELECT symbol, sell_usdt, sell_irt FROM price_points ORDER BY symbol',
    );
    expect(rows).toEqual([
      { symbol: 'BTC', sell_usdt: 64_001.01, sell_irt: null },
      { symbol: 'SHIB', sell_usdt: 0.00001234, sell_irt: null },
    ]);
  });
});
