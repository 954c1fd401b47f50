import type { Migration } from './types.ts';

/**
 * What lets several instances share one database as one service: the collector lease that elects
 * the one instance committing snapshots, and a notice on a channel, sent by the transaction that
 * commits a snapshot or changes a key, so every instance learns of it at once.
 */
export const collectorLeaseAndChangeNotices: Migration = {
  version: 3,
  name: 'collector lease and change notices',
  sql: `
    -- One row: which instance leads the collector, under which term, until when. A lease, not an
    -- advisory lock, so a leader cut off from the database loses it after the TTL on the database's
    -- own clock, whatever the state of its connection. The term grows by one at every change of
    -- holder and fences commits: a snapshot is written only under the current term.
    CREATE TABLE collector_lease (
      id integer PRIMARY KEY CHECK (id = 1),
      term bigint NOT NULL,
      holder text NOT NULL,
      acquired_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL
    );
    INSERT INTO collector_lease (id, term, holder, acquired_at, expires_at)
      VALUES (1, 0, '', 'epoch', 'epoch');

    -- NOTIFY is delivered when, and only if, the transaction that sent it commits: a listener
    -- never hears of a snapshot or a key it could not read yet, nor of one rolled back.
    CREATE FUNCTION notify_snapshot_committed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('nerkh_snapshots', NEW.id::text);
      RETURN NULL;
    END
    $$;
    CREATE TRIGGER snapshots_committed AFTER INSERT ON snapshots
      FOR EACH ROW EXECUTE FUNCTION notify_snapshot_committed();

    CREATE OR REPLACE FUNCTION bump_api_keys_version() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      bumped bigint;
    BEGIN
      UPDATE api_keys_version SET version = version + 1 WHERE id = 1 RETURNING version INTO bumped;
      PERFORM pg_notify('nerkh_api_keys', bumped::text);
      RETURN NULL;
    END
    $$;
  `,
};
