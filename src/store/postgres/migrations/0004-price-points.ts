import type { Migration } from './types.ts';

/**
 * Each snapshot's prices, one row per coin, written in the same statement as the snapshot and
 * pruned with it (ON DELETE CASCADE), so the price charts read a coin's week through the symbol
 * index instead of decoding every stored JSON document. The primary key serves the cascade and
 * the read of every coin's day, snapshot by snapshot.
 * Snapshots already stored are copied in, so the charts show the history kept before the upgrade.
 */
export const pricePoints: Migration = {
  version: 4,
  name: 'price points',
  sql: `
    CREATE TABLE price_points (
      snapshot_id bigint NOT NULL REFERENCES snapshots (id) ON DELETE CASCADE,
      symbol text COLLATE "C" NOT NULL,
      sell_usdt double precision NOT NULL,
      sell_irt bigint,
      PRIMARY KEY (snapshot_id, symbol)
    );
    CREATE INDEX price_points_symbol ON price_points (symbol, snapshot_id);
    INSERT INTO price_points (snapshot_id, symbol, sell_usdt, sell_irt)
    SELECT s.id, r.symbol, r.sell_usdt, r.sell_irt
    FROM snapshots s
    CROSS JOIN LATERAL json_to_recordset(s.rates) AS r(symbol text, sell_usdt float8, sell_irt bigint);
  `,
};
