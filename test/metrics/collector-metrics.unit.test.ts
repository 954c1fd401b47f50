import { Registry } from 'prom-client';
import { describe, expect, it, onTestFinished } from 'vitest';
import { Collector } from '../../src/collector/collector.ts';
import { loadConfig } from '../../src/config.ts';
import { parseCatalog } from '../../src/domain/catalog.ts';
import { createLogger } from '../../src/logger.ts';
import { CollectorMetrics } from '../../src/metrics/collector-metrics.ts';
import { parseSources } from '../../src/sources/load-sources.ts';
import { MemorySnapshotStore } from '../../src/store/memory/snapshot-store.ts';
import { FakeTime, settle } from '../support/fake-time.ts';
import { seriesValue } from '../support/scrape.ts';
import { storeWithCommit } from '../support/store-with-commit.ts';

const catalog = parseCatalog([
  { symbol: 'USDT', name_fa: 'تتر', name_en: 'Tether', pair: null },
  { symbol: 'BTC', name_fa: 'بیت‌کوین', name_en: 'Bitcoin', pair: 'BTCUSDT' },
  { symbol: 'ETH', name_fa: 'اتریوم', name_en: 'Ethereum', pair: 'ETHUSDT' },
]);
const sources = parseSources(
  `sources:
  - { name: binance, kind: binance, url: "wss://stream.binance.com:9443" }
  - { name: nobitex, kind: nobitex, url: "https://apiv2.nobitex.ir" }
routes:
  default: { usdt: [binance, nobitex] }
  coins:
    USDT: { toman: [nobitex] }
failover: { stale_seconds: 60, return_after_seconds: 300 }
`,
  'sources.yaml',
  { catalog, env: {} },
);

/** The value of one series in a scrape of `registry`. */
async function scraped(registry: Registry, series: string): Promise<number | undefined> {
  return seriesValue(await registry.metrics(), series);
}

function setup() {
  const time = new FakeTime(Date.parse('2026-03-01T10:00:00.000Z'));
  const store = new MemorySnapshotStore();
  let failing = false;
  const collector = new Collector({
    catalog,
    config: loadConfig({}),
    sources,
    store: storeWithCommit(store, async (draft) => {
      if (failing) throw Object.assign(new Error('disk full'), { code: 'SQLITE_FULL' });
      return store.commitSnapshot(draft);
    }),
    logger: createLogger('silent'),
    clock: time.clock,
    timers: time,
  });
  onTestFinished(() => collector.stop());
  const registry = new Registry();
  const metrics = new CollectorMetrics(registry);
  const unwatch = metrics.watch(collector);
  const quote = (source: string, symbol: string, currency: 'usdt' | 'toman', ask: number) =>
    collector.quote({ source, symbol, currency, ask, changePct: null, tickTime: time.now });
  const quoteAll = (binanceToo: boolean) => {
    for (const [symbol, ask] of [
      ['BTC', 64_000],
      ['ETH', 3100],
    ] as const) {
      if (binanceToo) quote('binance', symbol, 'usdt', ask);
      quote('nobitex', symbol, 'usdt', ask);
    }
    quote('nobitex', 'USDT', 'toman', 100_000);
  };
  return {
    time,
    collector,
    registry,
    metrics,
    unwatch,
    quote,
    quoteAll,
    fail: (value: boolean) => (failing = value),
  };
}

describe('CollectorMetrics', () => {
  it('shows a coin failing over and returning in the per-source and per-coin figures', async () => {
    const { time, collector, registry, quoteAll } = setup();
    for (const source of ['binance', 'nobitex']) collector.connectionState(source, 'open', 'serving');
    quoteAll(true);
    collector.status();
    expect(await scraped(registry, 'nerkh_source_coins{source="binance"}')).toBe(2);
    expect(await scraped(registry, 'nerkh_source_state{source="binance",state="up"}')).toBe(1);
    expect(
      await scraped(registry, 'nerkh_coin_failovers_total{symbol="BTC",currency="usdt"}'),
    ).toBeUndefined();

    time.now += 1000;
    collector.connectionState('binance', 'refused', 'HTTP 451');
    expect(await scraped(registry, 'nerkh_coin_failovers_total{symbol="BTC",currency="usdt"}')).toBe(1);
    expect(await scraped(registry, 'nerkh_coin_failovers_total{symbol="ETH",currency="usdt"}')).toBe(1);
    expect(await scraped(registry, 'nerkh_source_coins{source="binance"}')).toBe(0);
    expect(await scraped(registry, 'nerkh_source_coins{source="nobitex"}')).toBe(3);
    expect(await scraped(registry, 'nerkh_source_state{source="binance",state="down"}')).toBe(1);

    collector.connectionState('binance', 'open', 'serving again');
    // Binance must serve again for the return time (300 s) before the coins go back to it.
    for (let second = 10; second <= 300; second += 10) {
      time.now += 10_000;
      quoteAll(true);
      collector.status();
    }
    expect(await scraped(registry, 'nerkh_coin_returns_total{symbol="BTC",currency="usdt"}')).toBe(1);
    expect(await scraped(registry, 'nerkh_source_coins{source="binance"}')).toBe(2);
    expect(await scraped(registry, 'nerkh_source_reconnects_total{source="binance"}')).toBe(1);
  });

  it('counts commits by outcome with their duration, and rejected ticks by reason', async () => {
    const { time, collector, registry, quote, quoteAll, fail } = setup();
    quoteAll(true);
    await collector.commitNow();
    fail(true);
    time.now += 600_000;
    quoteAll(true);
    await collector.commitNow();
    await settle();
    expect(await scraped(registry, 'nerkh_snapshot_commits_total{outcome="ok"}')).toBe(1);
    expect(await scraped(registry, 'nerkh_snapshot_commits_total{outcome="failed"}')).toBe(1);
    expect(await scraped(registry, 'nerkh_snapshot_commit_duration_seconds_count{outcome="failed"}')).toBe(1);
    expect(await scraped(registry, 'nerkh_snapshot_last_commit_success_timestamp_seconds')).toBe(
      Date.parse('2026-03-01T10:00:00.000Z') / 1000,
    );
    quote('binance', 'DOGE', 'usdt', 1);
    expect(
      await scraped(registry, 'nerkh_source_rejected_ticks_total{source="binance",reason="unrouted"}'),
    ).toBe(1);
  });

  it('drops the source series once the collector it followed stops (a standby shows none)', async () => {
    const { registry, unwatch, metrics } = setup();
    let leading = true;
    metrics.watchLeadership(() => leading);
    expect(await scraped(registry, 'nerkh_collector_leader')).toBe(1);
    expect(await scraped(registry, 'nerkh_source_state{source="nobitex",state="down"}')).toBeDefined();
    unwatch();
    leading = false;
    expect(await scraped(registry, 'nerkh_collector_leader')).toBe(0);
    expect(await scraped(registry, 'nerkh_source_state{source="nobitex",state="down"}')).toBeUndefined();
  });
});

describe('CollectorMetrics: sources that deviate', () => {
  it('shows each source’s distance from the other on a coin both quote, and counts its deviating quotes', async () => {
    const { registry, quote } = setup();
    quote('binance', 'BTC', 'usdt', 64_000);
    quote('nobitex', 'BTC', 'usdt', 64_064);
    const btc = (source: string) =>
      `nerkh_source_deviation_ratio{symbol="BTC",currency="usdt",source="${source}"}`;
    expect(await scraped(registry, btc('binance'))).toBeCloseTo(-0.000999, 5);
    expect(await scraped(registry, btc('nobitex'))).toBeCloseTo(0.001, 5);
    expect(await scraped(registry, 'nerkh_source_deviating_quotes_total{source="nobitex"}')).toBeUndefined();
    // ETH from Nobitex 20 % above Binance from its first quote on: deviating on each of its quotes.
    quote('binance', 'ETH', 'usdt', 3100);
    quote('nobitex', 'ETH', 'usdt', 3720);
    quote('nobitex', 'ETH', 'usdt', 3721);
    const eth = `nerkh_source_deviation_ratio{symbol="ETH",currency="usdt",source="nobitex"}`;
    expect(await scraped(registry, eth)).toBeCloseTo(0.2003, 4);
    expect(await scraped(registry, 'nerkh_source_deviating_quotes_total{source="nobitex"}')).toBe(2);
    expect(await scraped(registry, 'nerkh_source_deviating_quotes_total{source="binance"}')).toBeUndefined();
  });
});

describe('CollectorMetrics: held prices', () => {
  it('shows since when each held price has been held, by coin, currency and source, and drops it when released', async () => {
    const { registry, quote, time } = setup();
    quote('binance', 'BTC', 'usdt', 64_000);
    quote('nobitex', 'BTC', 'usdt', 64_064);
    time.now += 5000;
    quote('nobitex', 'BTC', 'usdt', 640_640);
    const held = 'nerkh_price_held_since_timestamp_seconds{symbol="BTC",currency="usdt",source="nobitex"}';
    expect(await scraped(registry, held)).toBe(time.now / 1000);
    quote('nobitex', 'BTC', 'usdt', 64_070);
    expect(await scraped(registry, held)).toBeUndefined();
  });
});
