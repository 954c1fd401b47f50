/**
 * Collector throughput and snapshot build time on one core (targets in docs/performance.md):
 *   - ≥ 200,000 quote ticks/s, moving and unchanged prices mixed, over 200 pairs;
 *   - ≤ 20 ms to build a snapshot of 5,000 coins.
 * Run: npm run bench:collector
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CommandLine } from '../scripts/command-line.ts';
import { Collector, type CollectorOptions } from '../src/collector/collector.ts';
import { loadConfig } from '../src/config.ts';
import { type Catalog, parseCatalog } from '../src/domain/catalog.ts';
import type { Quote } from '../src/feeds/types.ts';
import { createLogger } from '../src/logger.ts';
import { builtInSources } from '../src/sources/default-sources.ts';
import { MemorySnapshotStore } from '../src/store/memory/snapshot-store.ts';
import { openSqlite } from '../src/store/sqlite/database.ts';
import { SqliteSnapshotStore } from '../src/store/sqlite/snapshot-store.ts';

new CommandLine(
  'bench:collector',
  'Usage: npm run bench:collector  (quote ticks per second over 200 pairs, and the time to build a snapshot of 5,000 coins; no options)',
).parse(() => parseArgs({ options: { help: { type: 'boolean' } } }).values);

const tickTarget = 200_000;
const tetherQuote: Quote = {
  symbol: 'USDT',
  currency: 'toman',
  ask: 105_299,
  changePct: null,
  tickTime: 1,
  source: 'nobitex',
};
const buildTargetMs = 20;

function syntheticCatalog(coins: number): Catalog {
  const entries: unknown[] = [{ symbol: 'USDT', name_fa: 'تتر', name_en: 'Tether', pair: null }];
  for (let index = 0; index < coins; index++) {
    const symbol = `C${index.toString(36).toUpperCase().padStart(4, '0')}`;
    entries.push({ symbol, name_fa: 'سکه\u200Cی آزمایشی', name_en: 'Test coin', pair: `${symbol}USDT` });
  }
  return parseCatalog(entries);
}

function newCollector(
  catalog: Catalog,
  store: CollectorOptions['store'] = new MemorySnapshotStore(),
): Collector {
  const config = loadConfig({ NERKH_MARKUP_PCT: '0.5', NERKH_PUBLIC_URL: 'https://rates.example' });
  return new Collector({
    catalog,
    config,
    sources: builtInSources(config),
    store,
    logger: createLogger('silent'),
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

function verdict(pass: boolean): string {
  return pass ? 'PASS' : 'MISS';
}

function benchTicks(): number {
  const pairs = 200;
  const catalog = syntheticCatalog(pairs);
  const collector = newCollector(catalog);
  const coinSymbols = catalog.flatMap((entry) => (entry.pair ? [entry.symbol] : []));
  // 500k prebuilt quotes replayed 4 times: 2M calls. Roughly one in three moves the price
  // (by up to ±0.5 %), the rest repeat it, as a real ticker stream does between trades.
  const batch = 500_000;
  const rounds = 4;
  // Prices wander within ±0.5 % of a base, so replaying the batch never trips the jump guard.
  const quotes: Quote[] = [];
  for (let i = 0; i < batch; i++) {
    const p = i % pairs;
    const level = Math.floor(i / pairs / 3);
    quotes.push({
      symbol: coinSymbols[p] as string,
      currency: 'usdt',
      ask: (1 + p) * (1 + (((level * 7919 + p) % 1000) - 500) / 100_000),
      changePct: ((i % 400) - 200) / 10,
      tickTime: 0,
      source: 'binance',
    });
  }
  collector.quote(tetherQuote);
  let now = 1_700_000_000_000;
  for (const quote of quotes.slice(0, 10_000)) {
    quote.tickTime = now++;
    collector.quote(quote);
  }
  let elapsedNs = 0n;
  for (let round = 0; round < rounds; round++) {
    for (const quote of quotes) quote.tickTime = now++;
    const started = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) collector.quote(quotes[i] as Quote);
    elapsedNs += process.hrtime.bigint() - started;
  }
  const rejected = Object.values(collector.rejectedCounts().binance ?? {}).reduce((sum, n) => sum + n, 0);
  if (rejected > 0)
    throw new Error(`bench quotes were rejected (${rejected}); the figures would be meaningless`);
  return (batch * rounds) / (Number(elapsedNs) / 1e9);
}

function benchBuild(coins: number, builds: number): { medianMs: number; p99Ms: number } {
  const catalog = syntheticCatalog(coins);
  const collector = newCollector(catalog);
  collector.quote(tetherQuote);
  let now = 1_700_000_000_000;
  const coinSymbols = catalog.flatMap((entry) => (entry.pair ? [entry.symbol] : []));
  for (const [index, symbol] of coinSymbols.entries()) {
    collector.quote({
      symbol,
      currency: 'usdt',
      ask: 1 + index,
      changePct: null,
      tickTime: now++,
      source: 'binance',
    });
  }
  const timings: number[] = [];
  for (let build = 0; build < builds + 20; build++) {
    // Between builds a tenth of the coins move, so every build formats fresh as_of values too.
    for (let index = build % 10; index < coinSymbols.length; index += 10) {
      collector.quote({
        symbol: coinSymbols[index] as string,
        currency: 'usdt',
        ask: 1 + index + build / 1000,
        changePct: 1.5,
        tickTime: now++,
        source: 'binance',
      });
    }
    const started = performance.now();
    const draft = collector.buildSnapshotDraft();
    const elapsed = performance.now() - started;
    if (draft.rates.length !== coins + 1)
      throw new Error(`built ${draft.rates.length} rows, expected ${coins + 1}`);
    if (build >= 20) timings.push(elapsed);
  }
  timings.sort((a, b) => a - b);
  return { medianMs: percentile(timings, 50), p99Ms: percentile(timings, 99) };
}

const ticksPerSecond = benchTicks();
console.log(
  `quote throughput (200 pairs, 2,000,000 ticks): ${Math.round(ticksPerSecond).toLocaleString('en-US')} ticks/s ` +
    `— target ≥ ${tickTarget.toLocaleString('en-US')}: ${verdict(ticksPerSecond >= tickTarget)}`,
);
for (const [coins, builds] of [
  [200, 2000],
  [5000, 300],
] as const) {
  const { medianMs, p99Ms } = benchBuild(coins, builds);
  const target = coins === 5000 ? ` — target ≤ ${buildTargetMs} ms: ${verdict(p99Ms <= buildTargetMs)}` : '';
  console.log(
    `snapshot build, ${coins.toLocaleString('en-US')} coins (${builds} builds): median ${medianMs.toFixed(3)} ms, ` +
      `p99 ${p99Ms.toFixed(3)} ms${target}`,
  );
}

/** Informative: the whole commit of 5,000 coins to SQLite (build, JSON, durable write). */
async function benchSqliteCommit(
  coins: number,
  commits: number,
): Promise<{ medianMs: number; p99Ms: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'nerkh-bench-'));
  const db = openSqlite(join(dir, 'nerkh.db'));
  try {
    const catalog = syntheticCatalog(coins);
    const collector = newCollector(catalog, new SqliteSnapshotStore(db, 50));
    collector.quote(tetherQuote);
    let now = 1_700_000_000_000;
    for (const [index, entry] of catalog.entries()) {
      if (entry.pair)
        collector.quote({
          symbol: entry.symbol,
          currency: 'usdt',
          ask: 1 + index,
          changePct: 1,
          tickTime: now++,
          source: 'binance',
        });
    }
    const timings: number[] = [];
    collector.onCommit((_snapshot, info) => timings.push(info.durationMs));
    for (let commit = 0; commit < commits; commit++) await collector.commitNow();
    timings.sort((a, b) => a - b);
    return { medianMs: percentile(timings, 50), p99Ms: percentile(timings, 99) };
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const commit = await benchSqliteCommit(5000, 50);
console.log(
  `snapshot commit to SQLite, 5,000 coins (50 commits, informative): median ${commit.medianMs.toFixed(2)} ms, ` +
    `p99 ${commit.p99Ms.toFixed(2)} ms`,
);
