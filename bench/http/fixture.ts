import { writeFileSync } from 'node:fs';
import { loadCatalog } from '../../src/catalog/catalog-file.ts';
import { Collector } from '../../src/collector/collector.ts';
import type { Config } from '../../src/config.ts';
import { type Catalog, parseCatalog } from '../../src/domain/catalog.ts';
import { issueApiKey } from '../../src/keys/issue-key.ts';
import { createLogger } from '../../src/logger.ts';
import { createPairMarket, seededRandom } from '../../src/simulator/market.ts';
import { builtInSources } from '../../src/sources/default-sources.ts';
import type { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';

/**
 * The data a bench server serves, written the way production writes it: a snapshot committed by
 * the real collector (real catalog coins, simulator prices, toman from a tether quote) into the
 * SQLite store, and keys issued through the real key store. Nothing here is visible to the
 * server as special: it opens the data directory as an operator's `nerkh serve` would.
 */

const persianDigits = '۰۱۲۳۴۵۶۷۸۹';

function persianNumber(value: number): string {
  return String(value).replace(/\d/g, (digit) => persianDigits[Number(digit)] as string);
}

/** The bundled catalog, topped up with plausible extra listings to `coins` rows (USDT included). */
export function benchCatalog(coins: number): Catalog {
  const bundled = loadCatalog();
  const entries = bundled.map((entry) => ({ ...entry }));
  for (let index = 1; entries.length < coins; index++) {
    const symbol = `NRK${index}`;
    entries.push({
      symbol,
      name_fa: `توکن فهرست‌شده ${persianNumber(index)}`,
      name_en: `Listed token ${index}`,
      pair: `${symbol}USDT`,
    });
  }
  return parseCatalog(entries.slice(0, coins));
}

/** Commits one snapshot of `coins` rows through the real collector; returns its row count. */
export async function commitBenchSnapshot(
  store: SqliteStore,
  config: Config,
  coins: number,
): Promise<number> {
  const catalog = benchCatalog(coins);
  const collector = new Collector({
    sources: builtInSources(config),
    catalog,
    config,
    store: store.snapshots,
    logger: createLogger('silent'),
  });
  const random = seededRandom(20_250_101);
  const now = Date.now();
  collector.quote({
    symbol: 'USDT',
    currency: 'toman',
    ask: 92_150,
    changePct: null,
    tickTime: now - 4_000,
    source: 'nobitex',
  });
  for (const [index, entry] of catalog.entries()) {
    if (entry.pair === null) continue;
    const market = createPairMarket(entry.symbol, entry.pair, random, now);
    collector.quote({
      symbol: entry.symbol,
      currency: 'usdt',
      ask: Number(market.ask) / 1e8,
      changePct: Math.round((random() - 0.5) * 1600) / 100,
      // Each coin last moved at its own time, minutes to an hour ago, as in a live market.
      tickTime: now - 1_000 - ((index * 7919) % 3_600_000),
      source: 'binance',
    });
  }
  const snapshot = await collector.commitNow();
  if (snapshot === null) throw new Error('the bench snapshot was not committed');
  return snapshot.rates.length;
}

/** A key as a client sends it, and its id (what nerkh's limiter counts it under). */
export interface BenchKey {
  key: string;
  id: string;
}

/**
 * Issues `count` keys through the key store, each with `rateLimit` as its per-key override, in
 * one transaction (one durable write instead of `count`); appends the plain keys to `keysFile`.
 */
export async function issueBenchKeys(
  store: SqliteStore,
  count: number,
  rateLimit: number,
  keysFile: string,
): Promise<BenchKey[]> {
  const keys: BenchKey[] = [];
  store.db.exec('BEGIN IMMEDIATE');
  try {
    for (let index = 0; index < count; index++) {
      const issued = await issueApiKey(store.keys, {
        org: `Bench client ${index}`,
        purpose: 'HTTP benchmark load',
        rateLimit,
      });
      keys.push({ key: issued.key, id: issued.record.id });
    }
    store.db.exec('COMMIT');
  } catch (error) {
    store.db.exec('ROLLBACK');
    throw error;
  }
  writeFileSync(keysFile, `${keys.map(({ key }) => key).join('\n')}\n`, { flag: 'a' });
  return keys;
}
