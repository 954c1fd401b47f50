import type { Migration } from './types.ts';

/**
 * The label of the sources that priced each snapshot (`source` of the rates response). Every
 * snapshot stored before it was priced by the only set-up there was, Binance and Nobitex; from
 * then on each commit names its own, so the column keeps no default.
 */
export const snapshotSource: Migration = {
  version: 2,
  name: 'snapshot source label',
  sql: `
    ALTER TABLE snapshots ADD COLUMN source text NOT NULL DEFAULT 'binance+nobitex';
    ALTER TABLE snapshots ALTER COLUMN source DROP DEFAULT;
  `,
};
