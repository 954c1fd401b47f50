import { describe, expect, it, onTestFinished } from 'vitest';
import { Collector, type CollectorOptions } from '../../src/collector/collector.ts';
import { loadConfig } from '../../src/config.ts';
import { parseCatalog } from '../../src/domain/catalog.ts';
import type { Snapshot, SnapshotDraft } from '../../src/domain/rates.ts';
import { createLogger } from '../../src/logger.ts';
import { builtInSources } from '../../src/sources/default-sources.ts';
import { parseSources } from '../../src/sources/load-sources.ts';
import { MemorySnapshotStore } from '../../src/store/memory/snapshot-store.ts';
import { FakeTime, settle } from '../support/fake-time.ts';
import { storeWithCommit } from '../support/store-with-commit.ts';

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

const catalog = parseCatalog([
  { symbol: 'USDT', name_fa: 'تتر', name_en: 'Tether', pair: null },
  { symbol: 'ETH', name_fa: 'اتریوم', name_en: 'Ethereum', pair: 'ETHUSDT' },
  { symbol: 'BTC', name_fa: 'بیت‌کوین', name_en: 'Bitcoin', pair: 'BTCUSDT' },
  { symbol: 'DOGE', name_fa: 'دوج‌کوین', name_en: 'Dogecoin', pair: 'DOGEUSDT' },
]);

function setup(env: Record<string, string> = {}, options: Partial<CollectorOptions> = {}) {
  const time = new FakeTime(T0);
  const store = new MemorySnapshotStore();
  const config = loadConfig({
    NERKH_PUBLIC_URL: 'https://rates.example',
    NERKH_REFRESH_SECONDS: '600',
    ...env,
  });
  const collector = new Collector({
    catalog,
    config,
    sources: builtInSources(config),
    store,
    logger: createLogger('silent'),
    clock: time.clock,
    timers: time,
    ...options,
  });
  // Stopped when the test ends, whether its assertions pass or not.
  onTestFinished(() => collector.stop());
  const coin = (symbol: string, ask: number, tickTime = time.now, changePct: number | null = 1.5) =>
    collector.quote({ symbol, currency: 'usdt', ask, changePct, tickTime, source: 'binance' });
  const tether = (toman: number, tickTime = time.now) =>
    collector.quote({
      symbol: 'USDT',
      currency: 'toman',
      ask: toman,
      changePct: null,
      tickTime,
      source: 'nobitex',
    });
  return { time, store, collector, coin, tether };
}

const rowOf = (snapshot: SnapshotDraft | null, symbol: string) =>
  snapshot?.rates.find((r) => r.symbol === symbol);

describe('Collector: prices and as_of', () => {
  it('keeps as_of on an unchanged tick and advances it on a tick that moves the price', () => {
    const { time, collector, coin, tether } = setup();
    tether(105_299);
    coin('BTC', 64_000.5, T0 + 1000);
    coin('BTC', 64_000.5, T0 + 5000, 2.25);
    let row = rowOf(collector.buildSnapshotDraft(), 'BTC');
    expect(row?.as_of).toBe(iso(T0 + 1000));
    expect(row?.change_24h).toBe(2.25);

    coin('BTC', 64_010, T0 + 9000);
    time.now = T0 + 10_000;
    row = rowOf(collector.buildSnapshotDraft(), 'BTC');
    expect(row?.as_of).toBe(iso(T0 + 9000));
    expect(row?.sell_usdt).toBe(64_010);
  });

  it('gives each row its own as_of, separate from updated_at', () => {
    const { time, collector, coin, tether } = setup();
    tether(105_299, T0);
    coin('BTC', 64_000, T0 + 1000);
    coin('ETH', 3100, T0 + 2000);
    coin('ETH', 3100, T0 + 60_000);
    time.now = T0 + 120_000;
    const draft = collector.buildSnapshotDraft();
    expect(draft.updated_at).toBe(iso(T0 + 120_000));
    expect(rowOf(draft, 'BTC')?.as_of).toBe(iso(T0 + 1000));
    expect(rowOf(draft, 'ETH')?.as_of).toBe(iso(T0 + 2000));
    expect(rowOf(draft, 'USDT')?.as_of).toBe(iso(T0));
  });

  it('prices in toman as round(sell_usdt × usdt_irt), sorted by symbol, without never-quoted coins', () => {
    const { collector, coin, tether } = setup();
    coin('ETH', 3100.37);
    coin('BTC', 64_000.5);
    tether(105_299);
    const draft = collector.buildSnapshotDraft();
    expect(draft.usdt_irt).toBe(105_299);
    expect(draft.rates.map((r) => r.symbol)).toEqual(['BTC', 'ETH', 'USDT']);
    expect(rowOf(draft, 'BTC')).toEqual({
      symbol: 'BTC',
      name_fa: 'بیت‌کوین',
      sell_usdt: 64_000.5,
      sell_irt: Math.round(64_000.5 * 105_299),
      change_24h: 1.5,
      as_of: iso(T0),
      url: 'https://rates.example/coins/BTC',
      source: 'binance',
      tether_source: 'nobitex',
    });
    expect(rowOf(draft, 'ETH')?.sell_irt).toBe(326_465_861);
  });

  it('publishes coins with sell_irt null while the tether rate is unknown, and no USDT row', () => {
    const { collector, coin } = setup();
    coin('BTC', 64_000);
    const draft = collector.buildSnapshotDraft();
    expect(draft.usdt_irt).toBeNull();
    expect(draft.rates).toHaveLength(1);
    expect(rowOf(draft, 'BTC')?.sell_irt).toBeNull();
  });

  it('publishes sell_irt null for a coin worth less than half a toman', () => {
    const { collector, coin, tether } = setup();
    tether(100_000);
    coin('DOGE', 0.000004);
    expect(rowOf(collector.buildSnapshotDraft(), 'DOGE')?.sell_irt).toBeNull();
  });

  it('applies the markup, with a per-symbol override, to sell_usdt and sell_irt', () => {
    const { collector, coin, tether } = setup({ NERKH_MARKUP_PCT: '1', NERKH_MARKUP_OVERRIDES: 'BTC=0.5' });
    tether(100_000);
    coin('BTC', 60_000);
    coin('ETH', 0.1);
    const draft = collector.buildSnapshotDraft();
    expect(rowOf(draft, 'BTC')?.sell_usdt).toBe(60_300);
    expect(rowOf(draft, 'BTC')?.sell_irt).toBe(6_030_000_000);
    expect(rowOf(draft, 'ETH')?.sell_usdt).toBe(0.101);
    expect(rowOf(draft, 'ETH')?.sell_irt).toBe(10_100);
  });

  it('makes a USDT row: sell_usdt 1, sell_irt = usdt_irt, no 24 h change, as_of of the last moving quote', () => {
    const { collector, tether } = setup();
    tether(105_000, T0);
    tether(105_000, T0 + 10_000);
    tether(105_299, T0 + 20_000);
    tether(105_299, T0 + 30_000);
    expect(rowOf(collector.buildSnapshotDraft(), 'USDT')).toEqual({
      symbol: 'USDT',
      name_fa: 'تتر',
      sell_usdt: 1,
      sell_irt: 105_299,
      change_24h: null,
      as_of: iso(T0 + 20_000),
      url: 'https://rates.example/coins/USDT',
      source: 'nobitex',
      tether_source: null,
    });
  });

  it('publishes usdt_irt as a whole toman when the source quotes a fraction of one', () => {
    const { collector, tether } = setup();
    tether(105_299.4, T0);
    expect(collector.buildSnapshotDraft().usdt_irt).toBe(105_299);
    tether(105_299.5, T0 + 1000);
    const draft = collector.buildSnapshotDraft();
    expect(draft.usdt_irt).toBe(105_300);
    expect(rowOf(draft, 'USDT')?.as_of).toBe(iso(T0 + 1000));
  });
});

describe('Collector: bad ticks', () => {
  it('rejects and counts bad ticks per source and reason, and never publishes them', () => {
    const { collector, coin, tether } = setup({ NERKH_MAX_JUMP_PCT: '50' });
    tether(105_299, T0);
    coin('BTC', 64_000, T0);
    coin('BTC', Number.NaN, T0 + 1);
    coin('BTC', -1, T0 + 2);
    coin('BTC', 0, T0 + 3);
    coin('BTC', 640_000, T0 + 4);
    coin('BTC', 1, T0 + 5);
    coin('BTC', 64_100, T0 - 1);
    coin('XYZ', 1, T0 + 6);
    tether(1_052_990, T0 + 7);
    collector.rejected('binance', 'malformed-frame');

    const draft = collector.buildSnapshotDraft();
    expect(rowOf(draft, 'BTC')?.sell_usdt).toBe(64_000);
    expect(draft.usdt_irt).toBe(105_299);
    expect(draft.rates.map((r) => r.symbol)).toEqual(['BTC', 'USDT']);
    expect(collector.rejectedCounts()).toEqual({
      binance: {
        'not-a-number': 1,
        'not-positive': 2,
        'unit-held': 2,
        'stale-tick': 1,
        unrouted: 1,
        'malformed-frame': 1,
      },
      nobitex: { 'unit-held': 1 },
    });
    const sources = collector.status().sources;
    expect(sources.find((s) => s.source === 'binance')?.rejected).toBe(8);
    expect(sources.find((s) => s.source === 'nobitex')?.rejected).toBe(1);
  });

  it('accepts a level beyond the jump guard only after the source has held it long enough', () => {
    const { collector, coin } = setup({}, { jumpConfirmMs: 60_000, jumpConfirmTicks: 3 });
    coin('DOGE', 0.1, T0);
    coin('DOGE', 0.2, T0 + 1000);
    coin('DOGE', 0.2, T0 + 30_000);
    coin('DOGE', 0.2, T0 + 59_000);
    expect(rowOf(collector.buildSnapshotDraft(), 'DOGE')?.sell_usdt).toBe(0.1);
    coin('DOGE', 0.201, T0 + 62_000);
    const row = rowOf(collector.buildSnapshotDraft(), 'DOGE');
    expect(row?.sell_usdt).toBe(0.201);
    expect(row?.as_of).toBe(iso(T0 + 62_000));
    expect(collector.rejectedCounts().binance?.['absurd-jump']).toBe(3);
  });

  it('does not let scattered absurd values confirm each other', () => {
    const { collector, coin } = setup({}, { jumpConfirmMs: 1000, jumpConfirmTicks: 2 });
    coin('DOGE', 0.1, T0);
    for (let i = 1; i <= 20; i++) coin('DOGE', i % 2 ? 5 : 0.001, T0 + i * 1000);
    expect(rowOf(collector.buildSnapshotDraft(), 'DOGE')?.sell_usdt).toBe(0.1);
  });
});

describe('Collector: sources', () => {
  it('lists the configured sources before they connect, and refuses a quote no route asks for, against its source', () => {
    const { collector } = setup();
    expect(collector.status().sources).toMatchObject([
      { source: 'binance', state: 'down', detail: 'not connected yet', last_message_at: null, coins: 0 },
      { source: 'nobitex', state: 'down', detail: 'not connected yet', last_message_at: null, coins: 0 },
    ]);

    const quote = { currency: 'usdt', changePct: null, tickTime: T0 } as const;
    collector.quote({ ...quote, symbol: 'BTC', ask: 64_000, source: 'wallex' });
    // The built-in routes ask Binance and Nobitex for coins in tether, and Nobitex for tether in
    // toman: never a coin in toman.
    collector.quote({ ...quote, symbol: 'ETH', currency: 'toman', ask: 310_000_000, source: 'binance' });
    collector.quote({ ...quote, symbol: 'BTC', currency: 'toman', ask: 6_400_000_000, source: 'nobitex' });
    collector.quote({ ...quote, symbol: 'XYZ', ask: 1, source: 'binance' });
    collector.quote({ ...quote, symbol: 'USDT', currency: 'toman', ask: -1, source: 'nobitex' });
    expect(collector.rejectedCounts()).toEqual({
      binance: { unrouted: 2 },
      nobitex: { unrouted: 1, 'not-positive': 1 },
      wallex: { unrouted: 1 },
    });
    expect(collector.buildSnapshotDraft().rates).toEqual([]);
    const wallex = collector.status().sources.find((s) => s.source === 'wallex');
    expect(wallex).toMatchObject({ last_message_at: null, rejected: 1, coins: 0 });
  });
});

describe('Collector: commits', () => {
  it('commits the first snapshot as soon as tether and every coin have quoted', async () => {
    const { time, store, collector, coin, tether } = setup();
    const commits: Snapshot[] = [];
    collector.onCommit((snapshot) => commits.push(snapshot));
    collector.start();
    await time.advance(200);
    coin('BTC', 64_000);
    coin('ETH', 3100);
    tether(105_299);
    await time.advance(0);
    expect(commits).toHaveLength(0);
    coin('DOGE', 0.12);
    await time.advance(0);
    expect(commits).toHaveLength(1);
    const latest = await store.latestSnapshot();
    expect(latest?.updated_at).toBe(iso(T0 + 200));
    expect(latest?.rates.map((r) => r.symbol)).toEqual(['BTC', 'DOGE', 'ETH', 'USDT']);
    expect(latest?.rates).toHaveLength(4);
  });

  it('commits whatever has arrived when the grace period ends, and nothing while nothing has', async () => {
    const { time, store, collector, coin } = setup({}, { firstCommitGraceMs: 5000 });
    collector.start();
    await time.advance(5000);
    expect(await store.latestSnapshot()).toBeNull();
    coin('BTC', 64_000);
    await time.advance(4999);
    expect(await store.latestSnapshot()).toBeNull();
    await time.advance(1);
    const first = await store.latestSnapshot();
    expect(first?.updated_at).toBe(iso(T0 + 10_000));
    expect(first?.usdt_irt).toBeNull();
    expect(first?.rates.map((r) => r.symbol)).toEqual(['BTC']);
  });

  it('commits on schedule after the first, advancing updated_at even when nothing moved', async () => {
    const { time, store, collector, coin, tether } = setup({ NERKH_REFRESH_SECONDS: '600' });
    collector.start();
    coin('BTC', 64_000);
    coin('ETH', 3100);
    coin('DOGE', 0.12);
    tether(105_299);
    await time.advance(0);
    const first = await store.latestSnapshot();
    await time.advance(599_999);
    expect(await store.latestSnapshotId()).toBe(first?.id);
    await time.advance(1);
    const second = await store.latestSnapshot();
    expect(second?.id).toBeGreaterThan(first?.id ?? 0);
    expect(second?.updated_at).toBe(iso(T0 + 600_000));
    expect(second?.rates).toEqual(first?.rates);

    coin('BTC', 64_500, T0 + 700_000);
    await time.advance(600_000);
    const third = await store.latestSnapshot();
    expect(third?.updated_at).toBe(iso(T0 + 1_200_000));
    expect(rowOf(third, 'BTC')).toMatchObject({ sell_usdt: 64_500, as_of: iso(T0 + 700_000) });
  });

  it('keeps its schedule when a snapshot is also committed on demand', async () => {
    const { time, store, collector, coin } = setup(
      { NERKH_REFRESH_SECONDS: '60' },
      { firstCommitGraceMs: 5000 },
    );
    collector.start();
    coin('BTC', 64_000);
    await collector.commitNow();
    await time.advance(5000);
    await time.advance(60_000);
    expect(await store.latestSnapshotId()).toBe(3);
    expect((await store.latestSnapshot())?.updated_at).toBe(iso(T0 + 65_000));
  });

  it('keeps the last known prices of a dead source and reports it', async () => {
    const { time, store, collector, coin, tether } = setup(
      { NERKH_REFRESH_SECONDS: '60' },
      { sourceStaleMs: 30_000, statusIntervalMs: 5000 },
    );
    collector.start();
    collector.connectionState('binance', 'open', 'streaming 3 pairs');
    collector.connectionState('nobitex', 'open', 'polling');
    coin('BTC', 64_000);
    coin('ETH', 3100);
    coin('DOGE', 0.12);
    tether(105_299);
    await time.advance(0);
    const good = await store.latestSnapshot();

    collector.connectionState('binance', 'backoff', 'reconnecting in 4 s after: stalled 30 s');
    for (let s = 10; s <= 180; s += 10) {
      await time.advance(10_000);
      tether(105_299);
    }
    const later = await store.latestSnapshot();
    expect(later?.id).toBeGreaterThan(good?.id ?? 0);
    expect(later?.rates).toEqual(good?.rates);
    const status = await store.getCollectorStatus();
    expect(status?.reported_at).toBe(iso(T0 + 180_000));
    expect(status?.sources.find((s) => s.source === 'binance')).toMatchObject({
      state: 'down',
      detail: 'reconnecting in 4 s after: stalled 30 s',
      last_message_at: iso(T0),
    });
    expect(status?.sources.find((s) => s.source === 'nobitex')).toMatchObject({ state: 'up' });

    collector.connectionState('binance', 'open', 'streaming 3 pairs');
    expect(collector.status().sources.find((s) => s.source === 'binance')?.reconnects).toBe(1);
  });

  it('commits a snapshot built at the commit moment; ticks during the store write go to the next one', async () => {
    const time = new FakeTime(T0);
    const slow = new MemorySnapshotStore();
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const gated = new Collector({
      catalog,
      config: loadConfig({}),
      sources: builtInSources(loadConfig({})),
      store: storeWithCommit(slow, async (draft) => {
        await gate;
        return slow.commitSnapshot(draft);
      }),
      logger: createLogger('silent'),
      clock: time.clock,
      timers: time,
    });
    gated.quote({
      symbol: 'USDT',
      currency: 'toman',
      ask: 105_299,
      changePct: null,
      tickTime: T0,
      source: 'nobitex',
    });
    gated.quote({
      symbol: 'BTC',
      currency: 'usdt',
      ask: 64_000,
      changePct: 1,
      tickTime: T0,
      source: 'binance',
    });
    const pending = gated.commitNow();
    await settle();
    gated.quote({
      symbol: 'BTC',
      currency: 'usdt',
      ask: 65_000,
      changePct: 1,
      tickTime: T0 + 1,
      source: 'binance',
    });
    release();
    const committed = await pending;
    expect(rowOf(committed, 'BTC')?.sell_usdt).toBe(64_000);
    expect(rowOf(await slow.latestSnapshot(), 'BTC')?.sell_usdt).toBe(64_000);
  });

  it('reports a failed commit at once with its error class but not its message, and keeps the last good snapshot', async () => {
    const store = new MemorySnapshotStore();
    let failing = false;
    class SqliteError extends Error {
      override name = 'SqliteError';
      code = 'SQLITE_FULL';
    }
    const { time, collector, coin, tether } = setup(
      {},
      {
        store: storeWithCommit(store, async (draft) => {
          if (failing) throw new SqliteError('database or disk is full: /srv/secret-path/nerkh.db');
          return store.commitSnapshot(draft);
        }),
        statusIntervalMs: 60_000,
      },
    );
    const failures: string[] = [];
    collector.onCommitFailure((failure) => failures.push(failure.error));
    tether(105_299);
    coin('BTC', 64_000);
    const good = await collector.commitNow();
    expect(collector.status().last_commit).toMatchObject({ outcome: 'ok', error: null, last_ok_at: iso(T0) });

    failing = true;
    time.now = T0 + 600_000;
    coin('BTC', 65_000);
    expect(await collector.commitNow()).toBeNull();
    await settle();
    // Written to the store at once, not at the next report interval.
    const reported = await store.getCollectorStatus();
    expect(reported?.last_commit).toMatchObject({
      outcome: 'failed',
      at: iso(T0 + 600_000),
      error: 'SqliteError SQLITE_FULL',
      last_ok_at: iso(T0),
    });
    expect(JSON.stringify(reported)).not.toContain('secret-path');
    expect(failures).toEqual(['SqliteError SQLITE_FULL']);
    expect((await store.latestSnapshot())?.id).toBe(good?.id);

    failing = false;
    time.now = T0 + 1_200_000;
    await collector.commitNow();
    await settle();
    expect((await store.getCollectorStatus())?.last_commit).toMatchObject({
      outcome: 'ok',
      error: null,
      last_ok_at: iso(T0 + 1_200_000),
    });
  });

  it('writes its health report on an interval and stops cleanly without committing again', async () => {
    const { time, store, collector, coin, tether } = setup({}, { statusIntervalMs: 2000 });
    collector.start();
    await time.advance(1);
    expect((await store.getCollectorStatus())?.reported_at).toBe(iso(T0));
    await time.advance(2000);
    expect((await store.getCollectorStatus())?.reported_at).toBe(iso(T0 + 2000));
    coin('BTC', 64_000);
    coin('ETH', 3100);
    coin('DOGE', 0.12);
    tether(105_299);
    await time.advance(0);
    const id = await store.latestSnapshotId();
    expect(id).toBe(1);
    await collector.stop();
    expect(time.pendingTimers).toBe(0);
    await time.advance(3_600_000);
    expect(await store.latestSnapshotId()).toBe(id);
  });
});

describe('Collector: restart', () => {
  it('starts from the last committed snapshot, so prices survive a restart with a dead source', async () => {
    const first = setup({ NERKH_MARKUP_PCT: '1' });
    first.coin('BTC', 60_000.37, T0);
    first.coin('ETH', 3100, T0 + 5000);
    first.tether(105_299, T0);
    const committed = await first.collector.commitNow();

    const second = setup({ NERKH_MARKUP_PCT: '1' }, { firstCommitGraceMs: 5000 });
    second.time.now = T0 + 3_600_000;
    second.collector.seed(committed as Snapshot);
    second.collector.start();
    await second.time.advance(5000);
    const restarted = await second.store.latestSnapshot();
    expect(restarted?.rates).toEqual(committed?.rates);
    expect(restarted?.usdt_irt).toBe(105_299);

    // The seeded price still guards: a tick about ten times it (60,000.37 → 600,000) is held, and
    // a live tick moves it as usual.
    second.coin('BTC', 600_000, T0 + 3_700_000);
    second.coin('BTC', 61_000, T0 + 3_700_001);
    const row = rowOf(second.collector.buildSnapshotDraft(), 'BTC');
    expect(row).toMatchObject({ sell_usdt: 61_610, as_of: iso(T0 + 3_700_001) });
    expect(second.collector.rejectedCounts().binance).toEqual({ 'unit-held': 1 });
  });
});

describe('Collector: failover between sources', () => {
  /** Coins in tether from Binance, then Nobitex; BTC in toman from Wallex; tether from Nobitex. */
  const failoverSources = parseSources(
    `sources:
  - { name: binance, kind: binance, url: "wss://stream.binance.com:9443" }
  - { name: nobitex, kind: nobitex, url: "https://apiv2.nobitex.ir" }
  - { name: wallex, kind: wallex, url: "https://api.wallex.ir" }
routes:
  default: { usdt: [binance, nobitex] }
  coins:
    USDT: { toman: [nobitex] }
    BTC: { toman: [wallex] }
failover: { stale_seconds: 60, return_after_seconds: 300 }
`,
    'sources.yaml',
    { catalog, env: {} },
  );

  /** Each coin's ask in tether at Binance and at Nobitex. */
  const asks = [
    ['ETH', 3100, 3103.1],
    ['BTC', 64_000, 64_064],
    ['DOGE', 0.12, 0.12012],
  ] as const;

  function failoverSetup() {
    const logs: Array<Record<string, unknown>> = [];
    const base = setup(
      {},
      {
        sources: failoverSources,
        logger: createLogger('info', { write: (line: string) => logs.push(JSON.parse(line)) }),
      },
    );
    const { collector, time } = base;
    const quote = (source: string, symbol: string, currency: 'usdt' | 'toman', ask: number) =>
      collector.quote({ source, symbol, currency, ask, changePct: null, tickTime: time.now });
    /** Every source quotes every coin it is asked for, at the current time. */
    const allQuote = (binanceToo = true) => {
      for (const [symbol, binance, nobitex] of asks) {
        if (binanceToo) quote('binance', symbol, 'usdt', binance);
        quote('nobitex', symbol, 'usdt', nobitex);
      }
      quote('nobitex', 'USDT', 'toman', 100_000);
      quote('wallex', 'BTC', 'toman', 6_500_000_000);
      quote('wallex', 'BTC', 'usdt', 64_500);
    };
    const sellUsdt = () =>
      Object.fromEntries(collector.buildSnapshotDraft().rates.map((row) => [row.symbol, row.sell_usdt]));
    const healthOf = (source: string) => collector.status().sources.find((s) => s.source === source);
    const moves = () => logs.filter((line) => String(line.msg).startsWith('coin '));
    return { ...base, logs, quote, allQuote, sellUsdt, healthOf, moves };
  }

  it('moves every coin of a refusing source at once, in one log line, and says so in health and in the label', () => {
    const { collector, time, allQuote, sellUsdt, healthOf, moves } = failoverSetup();
    for (const source of ['binance', 'nobitex', 'wallex'])
      collector.connectionState(source, 'open', 'serving');
    allQuote();
    expect(sellUsdt()).toEqual({ BTC: 64_500, DOGE: 0.12, ETH: 3100, USDT: 1 });
    expect(collector.buildSnapshotDraft().source).toBe('binance+nobitex+wallex');
    expect(healthOf('binance')).toMatchObject({ state: 'up', coins: 2 });

    time.now += 1000;
    const refusal = 'HTTP 451: Service unavailable from a restricted location';
    collector.connectionState('binance', 'refused', refusal);
    expect(moves()).toEqual([
      expect.objectContaining({
        msg: 'coin failed over',
        currency: 'usdt',
        from: 'binance',
        to: 'nobitex',
        reason: `refused: ${refusal}`,
        count: 3,
        symbols: ['ETH', 'BTC', 'DOGE'],
      }),
    ]);
    expect(sellUsdt()).toEqual({ BTC: 64_500, DOGE: 0.12012, ETH: 3103.1, USDT: 1 });
    expect(collector.buildSnapshotDraft().source).toBe('nobitex+wallex');
    expect(healthOf('binance')).toMatchObject({ state: 'down', detail: refusal, coins: 0 });
    expect(healthOf('nobitex')).toMatchObject({ state: 'up', coins: 3 });
    expect(healthOf('wallex')).toMatchObject({ coins: 1 });
  });

  it('returns the coins to their primary once it has served again for the return time, logged once', () => {
    const { collector, time, allQuote, sellUsdt, moves } = failoverSetup();
    allQuote();
    expect(sellUsdt().ETH).toBe(3100);
    collector.connectionState('binance', 'refused', 'HTTP 451');
    collector.connectionState('binance', 'open', 'streaming 3 pairs');
    for (let second = 10; second < 300; second += 10) {
      time.now = T0 + second * 1000;
      allQuote();
      expect(sellUsdt().ETH).toBe(3103.1);
    }
    time.now = T0 + 300_000;
    allQuote();
    expect(sellUsdt().ETH).toBe(3100);
    expect(moves().map(({ msg, count }) => [msg, count])).toEqual([
      ['coin failed over', 3],
      ['coin returned to its primary', 3],
    ]);
  });

  it('makes the first commit once each coin is quoted by the source that will serve it, not by a fallback', async () => {
    const { collector, time, store, allQuote } = failoverSetup();
    collector.start();
    allQuote(false);
    await time.advance(0);
    expect(await store.latestSnapshot()).toBeNull();
    collector.connectionState('binance', 'refused', 'HTTP 451');
    await time.advance(0);
    const first = await store.latestSnapshot();
    expect(first?.source).toBe('nobitex+wallex');
    expect(first?.updated_at).toBe(iso(T0));
  });

  it('waits for the primary when it answers after a fallback', async () => {
    const { collector, time, store, allQuote } = failoverSetup();
    collector.start();
    allQuote(false);
    await time.advance(1000);
    expect(await store.latestSnapshot()).toBeNull();
    allQuote();
    await time.advance(0);
    expect((await store.latestSnapshot())?.source).toBe('binance+nobitex+wallex');
  });

  it('moves a coin whose source stopped quoting it after the stale time, toman prices to the tether route', () => {
    const { time, quote, allQuote, sellUsdt, collector, moves } = failoverSetup();
    allQuote();
    expect(collector.buildSnapshotDraft().rates.find((row) => row.symbol === 'BTC')?.sell_irt).toBe(
      6_500_000_000,
    );
    time.now = T0 + 60_001;
    // Binance goes on quoting ETH and DOGE, nobitex everything; Wallex and Binance's BTC fall silent.
    quote('binance', 'ETH', 'usdt', 3100);
    quote('binance', 'DOGE', 'usdt', 0.12);
    for (const [symbol, , nobitex] of asks) quote('nobitex', symbol, 'usdt', nobitex);
    quote('nobitex', 'USDT', 'toman', 100_000);
    expect(sellUsdt()).toEqual({ BTC: 64_064, DOGE: 0.12, ETH: 3100, USDT: 1 });
    expect(collector.buildSnapshotDraft().rates.find((row) => row.symbol === 'BTC')?.sell_irt).toBe(
      6_406_400_000,
    );
    expect(moves()).toEqual([
      expect.objectContaining({
        from: 'binance',
        to: 'nobitex',
        reason: 'no quote for more than 60 s',
        count: 1,
      }),
    ]);
  });

  it('holds a source quoting ×1,000, prices its coins from the next source, and names it in health', () => {
    const { collector, time, allQuote, quote, sellUsdt, moves } = failoverSetup();
    allQuote();
    expect(sellUsdt().DOGE).toBe(0.12);
    // Binance starts quoting DOGE per 1,000 coins and keeps it up for ten minutes.
    for (let second = 0; second < 600; second += 10) {
      time.now += 10_000;
      allQuote(false);
      quote('binance', 'DOGE', 'usdt', 120);
      quote('binance', 'ETH', 'usdt', 3100);
      expect(sellUsdt().DOGE).toBe(0.12012);
    }
    expect(moves()).toContainEqual(
      expect.objectContaining({
        msg: 'coin failed over',
        from: 'binance',
        to: 'nobitex',
        symbols: ['DOGE'],
        reason: 'price held: 120 is 1000× its last accepted price 0.12',
      }),
    );
    expect(collector.status().held).toEqual([
      {
        symbol: 'DOGE',
        currency: 'usdt',
        source: 'binance',
        price: 120,
        reference: 0.12,
        reason: 'own-price',
        since: iso(T0 + 10_000),
        served_by: 'nobitex',
      },
    ]);
    expect(collector.rejectedCounts().binance?.['unit-held']).toBe(60);
    // Back to its per-coin price: the hold ends, and Binance takes DOGE back after the return time.
    quote('binance', 'DOGE', 'usdt', 0.121);
    expect(collector.status().held).toEqual([]);
    for (let second = 0; second < 300; second += 10) {
      expect(sellUsdt().DOGE).toBe(0.12012);
      time.now += 10_000;
      allQuote();
    }
    expect(sellUsdt().DOGE).toBe(0.12);
  });

  it("keeps a held coin's last price when no other source can price it, its as_of showing the age", () => {
    const { collector, time, allQuote, quote } = failoverSetup();
    allQuote();
    const before = collector.buildSnapshotDraft();
    time.now += 60_000;
    quote('nobitex', 'USDT', 'toman', 1_000_000);
    const draft = collector.buildSnapshotDraft();
    expect(draft.usdt_irt).toBe(100_000);
    expect(rowOf(draft, 'USDT')?.as_of).toBe(rowOf(before, 'USDT')?.as_of);
    expect(collector.status().held).toMatchObject([
      { symbol: 'USDT', currency: 'toman', source: 'nobitex', price: 1_000_000, served_by: 'nobitex' },
    ]);
  });

  it("applies the operator's acceptance of the held level, from the store, and logs who and why", async () => {
    const { collector, store, time, allQuote, quote, sellUsdt, logs } = failoverSetup();
    allQuote();
    time.now += 10_000;
    quote('binance', 'DOGE', 'usdt', 1.2);
    quote('binance', 'DOGE', 'usdt', 1.21);
    // An acceptance of another level, or of another source, is not applied.
    await store.recordPriceAcceptance(
      { symbol: 'DOGE', currency: 'usdt', source: 'binance', price: 2.4, operator: 'sara', reason: 'x' },
      new Date(time.now),
    );
    await store.recordPriceAcceptance(
      { symbol: 'DOGE', currency: 'usdt', source: 'nobitex', price: 1.2, operator: 'sara', reason: 'x' },
      new Date(time.now),
    );
    await collector.writeStatus();
    expect(sellUsdt().DOGE).toBe(0.12012);
    await store.recordPriceAcceptance(
      {
        symbol: 'DOGE',
        currency: 'usdt',
        source: 'binance',
        price: 1.2,
        operator: 'sara',
        reason: 'DOGE redenominated',
      },
      new Date(time.now),
    );
    await collector.writeStatus();
    expect(sellUsdt().DOGE).toBe(1.21);
    expect(collector.status().held).toEqual([]);
    expect(logs).toContainEqual(
      expect.objectContaining({
        msg: 'held price accepted by the operator; publishing it at the next snapshot',
        symbol: 'DOGE',
        source: 'binance',
        price: 1.21,
        previous: 0.12,
        operator: 'sara',
        reason: 'DOGE redenominated',
      }),
    );
    expect((await store.getCollectorStatus())?.held).toEqual([]);
  });

  it('publishes a −60 % move that two sources agree on at the next snapshot', () => {
    const { time, allQuote, quote, sellUsdt } = failoverSetup();
    allQuote();
    time.now += 10_000;
    quote('binance', 'ETH', 'usdt', 1240);
    expect(sellUsdt().ETH).toBe(3100);
    quote('nobitex', 'ETH', 'usdt', 1241.2);
    expect(sellUsdt().ETH).toBe(1240);
  });
});
