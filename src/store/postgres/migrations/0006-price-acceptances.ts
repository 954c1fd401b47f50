import type { Migration } from './types.ts';

/**
 * The operator's acceptances of held prices (docs/operations.md#held-prices), kept as their audit
 * trail: the collector reads the recent ones through the time index, nothing deletes them.
 */
export const priceAcceptances: Migration = {
  version: 6,
  name: 'price acceptances',
  sql: `
    CREATE TABLE price_acceptances (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      symbol text NOT NULL,
      currency text NOT NULL CHECK (currency IN ('usdt', 'toman')),
      source text NOT NULL,
      price float8 NOT NULL CHECK (price > 0),
      operator text NOT NULL,
      reason text NOT NULL,
      accepted_at timestamptz NOT NULL
    );
    CREATE INDEX price_acceptances_time ON price_acceptances (accepted_at);
  `,
};
