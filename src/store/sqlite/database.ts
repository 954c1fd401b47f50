import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

export type SqliteDatabase = Database.Database;

/**
 * What every connection to the file is set to: the main one (openSqlite) and the write thread's
 * (statement-thread.ts). WAL lets CLI writers (`nerkh keys revoke`) and the write thread work while
 * a server reads; `synchronous = FULL` makes every committed transaction durable before the commit
 * returns, so `kill -9` or a power cut never loses a committed snapshot or an issued key
 * (https://www.sqlite.org/pragma.html#pragma_synchronous); busy_timeout lets a writer wait 5 s for
 * another process's or thread's write lock before failing.
 */
export const connectionPragmas: readonly string[] = [
  'journal_mode = WAL',
  'synchronous = FULL',
  'busy_timeout = 5000',
  'foreign_keys = ON',
];

/** The main connection's page cache, in KiB (see openSqlite). */
const cacheKiB = 2000;

/**
 * Schema migrations, append-only: each entry runs once, in order, inside a transaction, and
 * `PRAGMA user_version` records how many have run. Never edit a released entry; add a new one.
 */
const migrations: readonly string[] = [
  `CREATE TABLE snapshots (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     updated_at TEXT NOT NULL,
     usdt_irt INTEGER,
     rates TEXT NOT NULL
   );
   CREATE TABLE collector_status (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     report TEXT NOT NULL
   );
   CREATE TABLE api_keys (
     id TEXT PRIMARY KEY,
     prefix TEXT NOT NULL,
     hash TEXT NOT NULL UNIQUE,
     org TEXT NOT NULL,
     contact TEXT,
     purpose TEXT NOT NULL,
     rate_limit INTEGER,
     created_at TEXT NOT NULL,
     expires_at TEXT,
     revoked_at TEXT,
     last_used_at TEXT
   );
   CREATE TABLE key_requests (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL,
     org TEXT NOT NULL,
     email TEXT NOT NULL,
     purpose TEXT NOT NULL,
     expected_use TEXT,
     status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected')),
     created_at TEXT NOT NULL,
     decided_at TEXT,
     key_id TEXT REFERENCES api_keys(id)
   );`,
  // Contact-page limit per client: a keyed hash of the IP, never the address itself.
  `ALTER TABLE key_requests ADD COLUMN client_hash TEXT;
   CREATE INDEX key_requests_client ON key_requests (client_hash, created_at);`,
  // A counter every write to api_keys bumps (except last-use updates), whichever process or tool
  // makes it: API instances poll it ~1/s to drop key caches, so a revocation applies everywhere.
  `CREATE TABLE api_keys_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL);
   INSERT INTO api_keys_version (id, version) VALUES (1, 0);
   CREATE TRIGGER api_keys_inserted AFTER INSERT ON api_keys
     BEGIN UPDATE api_keys_version SET version = version + 1 WHERE id = 1; END;
   CREATE TRIGGER api_keys_updated
     AFTER UPDATE OF prefix, hash, org, contact, purpose, rate_limit, expires_at, revoked_at ON api_keys
     BEGIN UPDATE api_keys_version SET version = version + 1 WHERE id = 1; END;
   CREATE TRIGGER api_keys_deleted AFTER DELETE ON api_keys
     BEGIN UPDATE api_keys_version SET version = version + 1 WHERE id = 1; END;`,
  // The label of the sources that priced each snapshot; every snapshot stored before it was
  // priced by the only set-up there was, Binance and Nobitex.
  `ALTER TABLE snapshots ADD COLUMN source TEXT NOT NULL DEFAULT 'binance+nobitex';`,
  // Each snapshot's prices, one row per coin, written and pruned with it (ON DELETE CASCADE): the
  // price charts read a coin's week through the symbol index (every coin's day through the primary
  // key, snapshot by snapshot) instead of decoding every stored JSON document
  // (which blocked the event loop for a large share of a second at 150 coins). Snapshots already
  // stored are copied in, so the charts show the history kept before the upgrade.
  `CREATE TABLE price_points (
     snapshot_id INTEGER NOT NULL REFERENCES snapshots(id) ON DELETE CASCADE,
     symbol TEXT NOT NULL,
     sell_usdt REAL NOT NULL,
     sell_irt INTEGER,
     PRIMARY KEY (snapshot_id, symbol)
   ) WITHOUT ROWID;
   CREATE INDEX price_points_symbol ON price_points (symbol);
   INSERT INTO price_points (snapshot_id, symbol, sell_usdt, sell_irt)
   SELECT s.id, r.value ->> '$.symbol', r.value ->> '$.sell_usdt', r.value ->> '$.sell_irt'
   FROM snapshots s, json_each(s.rates) r;`,
  // Requests per key per UTC day, admitted and refused, added to at each last-use flush
  // (docs/operations.md#usage-per-key). `nerkh keys usage` reads one key's days through the primary
  // key, every key's recent days through the day index.
  `CREATE TABLE api_key_usage (
     key_id TEXT NOT NULL REFERENCES api_keys(id),
     day TEXT NOT NULL,
     admitted INTEGER NOT NULL,
     refused INTEGER NOT NULL,
     PRIMARY KEY (key_id, day)
   ) WITHOUT ROWID;
   CREATE INDEX api_key_usage_day ON api_key_usage (day);`,
  // The operator's acceptances of held prices (docs/operations.md#held-prices), kept as their audit
  // trail: the collector reads the recent ones, nothing deletes them.
  `CREATE TABLE price_acceptances (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     symbol TEXT NOT NULL,
     currency TEXT NOT NULL CHECK (currency IN ('usdt', 'toman')),
     source TEXT NOT NULL,
     price REAL NOT NULL CHECK (price > 0),
     operator TEXT NOT NULL,
     reason TEXT NOT NULL,
     accepted_at TEXT NOT NULL
   );
   CREATE INDEX price_acceptances_time ON price_acceptances (accepted_at);`,
];

/** The schema version this release brings a store to (`PRAGMA user_version` once migrated). */
export const schemaVersion = migrations.length;

/**
 * Opens (creating if needed) the SQLite file, sets the connection up (connectionPragmas) and brings
 * its schema up to date. The page cache is SQLite's stock 2,000 KiB
 * (https://www.sqlite.org/pragma.html#pragma_cache_size), where better-sqlite3 builds it with
 * 16,000: the kernel's page cache holds the file anyway, what
 * is read per request is held in nerkh's own caches, and an API process that looks up many keys
 * holds far more with the larger one (docs/decisions/0032-sqlite-page-caches.md).
 */
export function openSqlite(file: string): SqliteDatabase {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  for (const pragma of connectionPragmas) db.pragma(pragma);
  db.pragma(`cache_size = -${cacheKiB}`);
  const applied = db.pragma('user_version', { simple: true }) as number;
  for (let index = applied; index < migrations.length; index++) {
    const sql = migrations[index] as string;
    db.transaction(() => {
      db.exec(sql);
      db.pragma(`user_version = ${index + 1}`);
    }).immediate();
  }
  return db;
}
