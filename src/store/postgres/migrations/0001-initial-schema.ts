import type { Migration } from './types.ts';

/**
 * The schema of the SQLite store's first three migrations, in PostgreSQL's types: times are
 * timestamptz (compared and ordered as instants, read back as ISO 8601 strings), ids that are
 * sorted or compared byte by byte use the "C" collation as SQLite does.
 */
export const initialSchema: Migration = {
  version: 1,
  name: 'initial schema',
  sql: `
    -- One row per committed snapshot, its rates one JSON document: the hot read is "the newest
    -- row" (one index probe on the primary key, one value) and nothing ever queries inside the
    -- rates. json, not jsonb: it is stored and sent back as written, with no decomposition on
    -- commit nor re-serialisation on every read.
    CREATE TABLE snapshots (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      updated_at timestamptz NOT NULL,
      usdt_irt bigint,
      rates json NOT NULL
    );

    CREATE TABLE collector_status (
      id integer PRIMARY KEY CHECK (id = 1),
      report json NOT NULL
    );

    CREATE TABLE api_keys (
      id text COLLATE "C" PRIMARY KEY,
      prefix text NOT NULL,
      hash text COLLATE "C" NOT NULL UNIQUE,
      org text NOT NULL,
      contact text,
      purpose text NOT NULL,
      rate_limit integer,
      created_at timestamptz NOT NULL,
      expires_at timestamptz,
      revoked_at timestamptz,
      last_used_at timestamptz
    );

    CREATE TABLE key_requests (
      id text COLLATE "C" PRIMARY KEY,
      name text NOT NULL,
      org text NOT NULL,
      email text NOT NULL,
      purpose text NOT NULL,
      expected_use text,
      client_hash text,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected')),
      created_at timestamptz NOT NULL,
      decided_at timestamptz,
      key_id text COLLATE "C" REFERENCES api_keys (id)
    );
    -- The contact page's per-client limit counts one client's recent requests.
    CREATE INDEX key_requests_client ON key_requests (client_hash, created_at);

    -- A counter every change to api_keys bumps in the same transaction (except last-use writes),
    -- whichever process or tool makes it: API instances poll it to drop their key caches, so a
    -- revocation applies everywhere.
    CREATE TABLE api_keys_version (
      id integer PRIMARY KEY CHECK (id = 1),
      version bigint NOT NULL
    );
    INSERT INTO api_keys_version (id, version) VALUES (1, 0);

    CREATE FUNCTION bump_api_keys_version() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE api_keys_version SET version = version + 1 WHERE id = 1;
      RETURN NULL;
    END
    $$;
    CREATE TRIGGER api_keys_inserted AFTER INSERT ON api_keys
      FOR EACH ROW EXECUTE FUNCTION bump_api_keys_version();
    CREATE TRIGGER api_keys_updated
      AFTER UPDATE OF prefix, hash, org, contact, purpose, rate_limit, expires_at, revoked_at ON api_keys
      FOR EACH ROW EXECUTE FUNCTION bump_api_keys_version();
    CREATE TRIGGER api_keys_deleted AFTER DELETE ON api_keys
      FOR EACH ROW EXECUTE FUNCTION bump_api_keys_version();
  `,
};
