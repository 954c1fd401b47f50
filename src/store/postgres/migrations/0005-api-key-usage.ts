import type { Migration } from './types.ts';

/**
 * Requests per key per UTC day, admitted and refused, added to at each last-use flush of every API
 * instance (docs/operations.md#usage-per-key). `nerkh keys usage` reads one key's days through the
 * primary key, every key's recent days through the day index.
 */
export const apiKeyUsage: Migration = {
  version: 5,
  name: 'api key usage',
  sql: `
    CREATE TABLE api_key_usage (
      key_id text COLLATE "C" NOT NULL REFERENCES api_keys (id),
      day date NOT NULL,
      admitted bigint NOT NULL,
      refused bigint NOT NULL,
      PRIMARY KEY (key_id, day)
    );
    CREATE INDEX api_key_usage_day ON api_key_usage (day);
  `,
};
