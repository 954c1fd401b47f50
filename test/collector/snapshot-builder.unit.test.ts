import { describe, expect, it } from 'vitest';
import { CoinRouting } from '../../src/collector/coin-routing.ts';
import { SnapshotBuilder } from '../../src/collector/snapshot-builder.ts';
import type { SourceSeries } from '../../src/collector/source-series.ts';
import { loadConfig } from '../../src/config.ts';
import { parseCatalog } from '../../src/domain/catalog.ts';
import type { Snapshot, SnapshotDraft } from '../../src/domain/rates.ts';
import type { QuoteCurrency } from '../../src/feeds/types.ts';
import { builtInSources } from '../../src/sources/default-sources.ts';
import type { ConfiguredSource, SourcesSetup } from '../../src/sources/sources-setup.ts';

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

const withUsdt = [
  { symbol: 'USDT', name_fa: 'تتر', name_en: 'Tether', pair: null },
  { symbol: 'ETH', name_fa: 'اتریوم', name_en: 'Ethereum', pair: 'ETHUSDT' },
  { symbol: 'BTC', name_fa: 'بیت‌کوین', name_en: 'Bitcoin', pair: 'BTCUSDT' },
  { symbol: 'ZEC', name_fa: 'زی‌کش', name_en: 'Zcash', pair: 'ZECUSDT' },
  { symbol: 'DOGE', name_fa: 'دوج‌کوین', name_en: 'Dogecoin', pair: 'DOGEUSDT' },
];

const source = (name: string, kind: 'binance' | 'nobitex' | 'wallex'): ConfiguredSource =>
  kind === 'binance'
    ? { name, kind, url: 'wss://stream.example', secretHeaders: {} }
    : { name, kind, url: 'https://api.example', secretHeaders: {} };

/**
 * Coins in toman from Wallex first, then Nobitex; in tether from Binance, then Nobitex; tether's
 * toman price from Nobitex, then Wallex.
 */
const tomanSetup: SourcesSetup = {
  origin: 'test',
  sources: [source('binance', 'binance'), source('nobitex', 'nobitex'), source('wallex', 'wallex')],
  defaultRoutes: { usdt: ['binance', 'nobitex'], toman: ['wallex', 'nobitex'] },
  coinRoutes: new Map([['USDT', { toman: ['nobitex', 'wallex'] }]]),
  staleMs: 120_000,
  returnAfterMs: 300_000,
};

function setup(env: Record<string, string> = {}, entries: unknown[] = withUsdt, sources?: SourcesSetup) {
  const config = loadConfig({ NERKH_PUBLIC_URL: 'https://rates.example', ...env });
  const catalog = parseCatalog(entries);
  const routing = new CoinRouting(sources ?? builtInSources(config), catalog);
  const builder = new SnapshotBuilder({ catalog, config, routing });
  const series = (name: string, currency: QuoteCurrency, symbol: string) =>
    routing.seriesOf(name, currency, symbol) as SourceSeries;
  /** Sets a price as an accepted quote at `heardAt` would (clock time; default the tick time). */
  const quote = (
    name: string,
    currency: QuoteCurrency,
    symbol: string,
    price: number,
    movedAt: number,
    change: number | null = null,
    heardAt = movedAt,
  ) => {
    const target = series(name, currency, symbol);
    target.price = price;
    target.movedAt = movedAt;
    target.tickTime = movedAt;
    target.change = change;
    target.heard(heardAt, routing.staleMs);
  };
  const coin = (symbol: string, price: number, movedAt: number, change: number | null = null) =>
    quote('binance', 'usdt', symbol, price, movedAt, change);
  const tether = (price: number, movedAt: number) => quote('nobitex', 'toman', 'USDT', price, movedAt);
  /** Picks the serving sources at `now`, then builds, as the collector does. */
  const build = (now: number) => {
    routing.select(now);
    return builder.build(now);
  };
  return { builder, routing, series, quote, coin, tether, build };
}

const rowOf = (draft: SnapshotDraft, symbol: string) => draft.rates.find((row) => row.symbol === symbol);

describe('SnapshotBuilder: rows priced in tether', () => {
  it('publishes priced coins sorted by symbol with the USDT row in its place, and leaves out unpriced ones', () => {
    const { build, tether, coin } = setup();
    tether(105_299, T0);
    coin('ZEC', 30, T0);
    coin('ETH', 3100.37, T0);
    coin('BTC', 64_000.5, T0);
    const draft = build(T0 + 120_000);
    expect(draft.updated_at).toBe(iso(T0 + 120_000));
    expect(draft.usdt_irt).toBe(105_299);
    expect(draft.rates.map((row) => row.symbol)).toEqual(['BTC', 'ETH', 'USDT', 'ZEC']);
  });

  it('writes each coin row from its price: toman as round(sell_usdt × usdt_irt), its change and its own as_of', () => {
    const { build, tether, coin } = setup();
    tether(105_299, T0);
    coin('BTC', 64_000.5, T0 + 1000, 2.25);
    coin('ETH', 3100.37, T0 + 2000, null);
    const draft = build(T0 + 60_000);
    expect(rowOf(draft, 'BTC')).toEqual({
      symbol: 'BTC',
      name_fa: 'بیت‌کوین',
      sell_usdt: 64_000.5,
      sell_irt: Math.round(64_000.5 * 105_299),
      change_24h: 2.25,
      as_of: iso(T0 + 1000),
      url: 'https://rates.example/coins/BTC',
      source: 'binance',
      tether_source: 'nobitex',
    });
    expect(rowOf(draft, 'ETH')).toMatchObject({
      sell_irt: 326_465_861,
      change_24h: null,
      as_of: iso(T0 + 2000),
    });
  });

  it('makes the USDT row: sell_usdt 1, sell_irt = usdt_irt, no change, as_of of the tether price', () => {
    const { build, tether } = setup();
    tether(105_299, T0 + 20_000);
    expect(build(T0 + 30_000).rates).toEqual([
      {
        symbol: 'USDT',
        name_fa: 'تتر',
        sell_usdt: 1,
        sell_irt: 105_299,
        change_24h: null,
        as_of: iso(T0 + 20_000),
        url: 'https://rates.example/coins/USDT',
        source: 'nobitex',
        tether_source: null,
      },
    ]);
  });

  it('publishes sell_irt null and no USDT row while tether is unpriced', () => {
    const { build, coin } = setup();
    coin('BTC', 64_000, T0);
    const draft = build(T0);
    expect(draft.usdt_irt).toBeNull();
    expect(draft.rates).toEqual([expect.objectContaining({ symbol: 'BTC', sell_irt: null })]);
  });

  it('publishes sell_irt null for a coin worth less than half a toman', () => {
    const { build, tether, coin } = setup();
    tether(100_000, T0);
    coin('DOGE', 0.000004, T0);
    expect(rowOf(build(T0), 'DOGE')?.sell_irt).toBeNull();
  });

  it('applies the markup, with a per-symbol override, to sell_usdt and sell_irt', () => {
    const { build, tether, coin } = setup({ NERKH_MARKUP_PCT: '1', NERKH_MARKUP_OVERRIDES: 'BTC=0.5' });
    tether(100_000, T0);
    coin('BTC', 60_000, T0);
    coin('ETH', 0.1, T0);
    const draft = build(T0);
    expect(rowOf(draft, 'BTC')).toMatchObject({ sell_usdt: 60_300, sell_irt: 6_030_000_000 });
    expect(rowOf(draft, 'ETH')).toMatchObject({ sell_usdt: 0.101, sell_irt: 10_100 });
  });

  it('follows a price that moves between builds', () => {
    const { build, tether, coin } = setup({ NERKH_MARKUP_PCT: '1' });
    tether(100_000, T0);
    coin('BTC', 60_000, T0);
    expect(rowOf(build(T0), 'BTC')).toMatchObject({ sell_usdt: 60_600, as_of: iso(T0) });
    coin('BTC', 61_000, T0 + 5000);
    tether(101_000, T0 + 6000);
    const draft = build(T0 + 10_000);
    expect(rowOf(draft, 'BTC')).toMatchObject({
      sell_usdt: 61_610,
      sell_irt: 6_222_610_000,
      as_of: iso(T0 + 5000),
    });
    expect(rowOf(draft, 'USDT')?.as_of).toBe(iso(T0 + 6000));
  });

  it('publishes usdt_irt and toman prices without a USDT row when the catalog does not list USDT', () => {
    const { build, tether, coin } = setup({}, withUsdt.slice(1));
    tether(100_000, T0);
    coin('BTC', 60_000, T0);
    const draft = build(T0);
    expect(draft.usdt_irt).toBe(100_000);
    expect(draft.rates.map((row) => row.symbol)).toEqual(['BTC']);
    expect(rowOf(draft, 'BTC')?.sell_irt).toBe(6_000_000_000);
  });
});

describe('SnapshotBuilder: rows priced in toman by their source', () => {
  it("publishes the source's toman ask as sell_irt and its tether ask as sell_usdt, as_of of the later move", () => {
    const { build, quote } = setup({}, withUsdt, tomanSetup);
    quote('nobitex', 'toman', 'USDT', 105_299, T0);
    quote('wallex', 'toman', 'BTC', 6_750_000_000, T0 + 1000, 2.5);
    quote('wallex', 'usdt', 'BTC', 64_100.5, T0 + 3000, 2.4);
    quote('binance', 'usdt', 'BTC', 64_000, T0 + 4000, 1.1);
    expect(rowOf(build(T0 + 5000), 'BTC')).toEqual({
      symbol: 'BTC',
      name_fa: 'بیت‌کوین',
      sell_usdt: 64_100.5,
      sell_irt: 6_750_000_000,
      change_24h: 2.5,
      as_of: iso(T0 + 3000),
      url: 'https://rates.example/coins/BTC',
      source: 'wallex',
      tether_source: null,
    });
  });

  it('applies the markup to both, and rounds sell_irt to a whole toman', () => {
    const { build, quote } = setup({ NERKH_MARKUP_PCT: '1' }, withUsdt, tomanSetup);
    quote('nobitex', 'toman', 'USDT', 100_000, T0);
    quote('wallex', 'toman', 'DOGE', 12_345.6, T0);
    quote('wallex', 'usdt', 'DOGE', 0.12, T0);
    expect(rowOf(build(T0), 'DOGE')).toMatchObject({ sell_irt: 12_469, sell_usdt: 0.1212 });
  });

  it('derives sell_usdt as toman ÷ usdt_irt (8 significant digits) when the source has no tether price of the coin', () => {
    const { build, quote } = setup({}, withUsdt, tomanSetup);
    quote('nobitex', 'toman', 'USDT', 105_299, T0);
    quote('wallex', 'toman', 'ETH', 340_000_000.4, T0 + 1000, -1.5);
    const draft = build(T0 + 2000);
    expect(rowOf(draft, 'ETH')).toMatchObject({
      sell_irt: 340_000_000,
      sell_usdt: 3228.9006,
      change_24h: -1.5,
      as_of: iso(T0 + 1000),
    });
  });

  it('leaves such a row out while usdt_irt is unknown, unless its tether route prices it', () => {
    const { build, quote } = setup({}, withUsdt, tomanSetup);
    quote('wallex', 'toman', 'ETH', 340_000_000, T0);
    quote('wallex', 'toman', 'BTC', 6_750_000_000, T0);
    quote('wallex', 'usdt', 'BTC', 64_100, T0);
    quote('binance', 'usdt', 'ZEC', 30, T0);
    const draft = build(T0);
    expect(draft.usdt_irt).toBeNull();
    expect(draft.rates.map((row) => [row.symbol, row.sell_usdt, row.sell_irt])).toEqual([
      ['BTC', 64_100, 6_750_000_000],
      ['ZEC', 30, null],
    ]);
  });

  it('prices a coin from its tether route when no toman source is usable, and in toman again once one is', () => {
    const { build, quote } = setup({}, withUsdt, tomanSetup);
    quote('nobitex', 'toman', 'USDT', 100_000, T0);
    quote('wallex', 'toman', 'BTC', 6_750_000_000, T0);
    quote('binance', 'usdt', 'BTC', 64_000, T0 + 60_000);
    expect(rowOf(build(T0 + 60_000), 'BTC')).toMatchObject({ sell_irt: 6_750_000_000 });
    // Wallex's last BTC quote is older than the stale time; Binance's is not.
    quote('nobitex', 'toman', 'USDT', 100_000, T0, null, T0 + 130_000);
    expect(rowOf(build(T0 + 130_000), 'BTC')).toMatchObject({
      sell_usdt: 64_000,
      sell_irt: 6_400_000_000,
      as_of: iso(T0 + 60_000),
    });
    quote('nobitex', 'toman', 'BTC', 6_760_000_000, T0 + 131_000);
    expect(rowOf(build(T0 + 131_000), 'BTC')).toMatchObject({
      sell_irt: 6_760_000_000,
      as_of: iso(T0 + 131_000),
    });
  });

  it('keeps publishing the last toman price when no source of the coin is usable', () => {
    const { build, quote } = setup({}, withUsdt, tomanSetup);
    quote('nobitex', 'toman', 'USDT', 100_000, T0);
    quote('wallex', 'toman', 'BTC', 6_750_000_000, T0);
    quote('binance', 'usdt', 'BTC', 64_000, T0);
    expect(rowOf(build(T0 + 3_600_000), 'BTC')).toMatchObject({ sell_irt: 6_750_000_000, as_of: iso(T0) });
  });
});

describe('SnapshotBuilder: the source of each row', () => {
  it('names the source that priced each row, and tether’s where a price was converted through usdt_irt', () => {
    const { build, quote } = setup({}, withUsdt, tomanSetup);
    quote('wallex', 'toman', 'USDT', 100_000, T0);
    // In toman with its own tether ask: nothing converted.
    quote('wallex', 'toman', 'BTC', 6_750_000_000, T0);
    quote('wallex', 'usdt', 'BTC', 64_100, T0);
    // In toman by a source that does not quote it in tether here: sell_usdt = sell_irt ÷ usdt_irt.
    quote('nobitex', 'toman', 'ETH', 340_000_000, T0);
    // In tether: sell_irt = round(sell_usdt × usdt_irt).
    quote('binance', 'usdt', 'ZEC', 30, T0);
    const draft = build(T0);
    expect(draft.rates.map((row) => [row.symbol, row.source, row.tether_source])).toEqual([
      ['BTC', 'wallex', null],
      ['ETH', 'nobitex', 'wallex'],
      ['USDT', 'wallex', null],
      ['ZEC', 'binance', 'wallex'],
    ]);
    expect(rowOf(draft, 'ETH')?.sell_usdt).toBe(3400);
    expect(rowOf(draft, 'ZEC')?.sell_irt).toBe(3_000_000);
  });

  it('names no tether source on a row whose sell_irt is null', () => {
    const { build, coin } = setup();
    coin('BTC', 64_000, T0);
    expect(build(T0).rates).toEqual([
      expect.objectContaining({ symbol: 'BTC', sell_irt: null, source: 'binance', tether_source: null }),
    ]);
  });

  it('names the fallback on the next build once the primary refuses', () => {
    const { build, routing, coin, tether, quote } = setup();
    tether(100_000, T0);
    coin('BTC', 64_000, T0);
    quote('nobitex', 'usdt', 'BTC', 64_050, T0);
    expect(rowOf(build(T0), 'BTC')).toMatchObject({
      sell_usdt: 64_000,
      source: 'binance',
      tether_source: 'nobitex',
    });
    const binance = routing.availabilityOf('binance');
    if (binance === undefined) throw new Error('no binance in the built-in set-up');
    binance.refused = true;
    const failedOver = build(T0 + 1000);
    expect(rowOf(failedOver, 'BTC')).toMatchObject({
      sell_usdt: 64_050,
      source: 'nobitex',
      tether_source: 'nobitex',
    });
    expect(failedOver.source).toBe('nobitex');
  });

  it('follows a toman failover: the fallback without a tether ask of the coin converts through usdt_irt', () => {
    const { build, routing, quote } = setup({}, withUsdt, tomanSetup);
    quote('nobitex', 'toman', 'USDT', 100_000, T0);
    quote('wallex', 'toman', 'BTC', 6_750_000_000, T0);
    quote('wallex', 'usdt', 'BTC', 67_500, T0);
    quote('nobitex', 'toman', 'BTC', 6_760_000_000, T0);
    expect(rowOf(build(T0), 'BTC')).toMatchObject({ source: 'wallex', tether_source: null });
    const wallex = routing.availabilityOf('wallex');
    if (wallex === undefined) throw new Error('no wallex in the set-up');
    wallex.refused = true;
    // Nobitex is routed for BTC in toman only here, so its row's sell_usdt is converted.
    expect(rowOf(build(T0 + 1000), 'BTC')).toMatchObject({
      sell_irt: 6_760_000_000,
      sell_usdt: 67_600,
      source: 'nobitex',
      tether_source: 'nobitex',
    });
  });
});

describe('SnapshotBuilder: the source label and counts', () => {
  it('names the sources that priced at least one row, in file order, tether’s source included', () => {
    const { build, builder, quote } = setup({}, withUsdt, tomanSetup);
    quote('nobitex', 'toman', 'USDT', 100_000, T0);
    quote('binance', 'usdt', 'ZEC', 30, T0);
    quote('wallex', 'toman', 'BTC', 6_750_000_000, T0);
    expect(build(T0).source).toBe('binance+nobitex+wallex');
    expect(builder.servedBy(T0)).toEqual(
      new Map([
        ['BTC', 'wallex'],
        ['USDT', 'nobitex'],
        ['ZEC', 'binance'],
      ]),
    );
  });

  it('is binance+nobitex for the built-in set-up, and leaves out a source that priced nothing', () => {
    const { build, coin, tether } = setup();
    coin('BTC', 64_000, T0);
    expect(build(T0).source).toBe('binance');
    tether(100_000, T0);
    expect(build(T0).source).toBe('binance+nobitex');
  });
});

describe('SnapshotBuilder.seed', () => {
  const committed = (rates: Snapshot['rates'], usdtIrt: number | null = 105_299): Snapshot => ({
    id: 7,
    updated_at: iso(T0 + 60_000),
    source: 'binance+nobitex',
    usdt_irt: usdtIrt,
    rates,
  });
  const row = (
    symbol: string,
    sellUsdt: number,
    asOf: number,
    change: number | null = 1.5,
    sellIrt: number | null = null,
  ) => ({
    symbol,
    name_fa: 'نام',
    sell_usdt: sellUsdt,
    sell_irt: sellIrt,
    change_24h: change,
    as_of: iso(asOf),
    url: `https://rates.example/coins/${symbol}`,
    source: 'binance',
    tether_source: null,
  });

  it('restores each price, its as_of and change, and publishes the stored sell_usdt exactly until the ask moves', () => {
    const { builder, build, series, coin } = setup({ NERKH_MARKUP_PCT: '1' });
    // More digits than a markup computation keeps: republished as stored, not recomputed.
    builder.seed(committed([row('BTC', 64_000.123456789, T0, -2.5), row('USDT', 1, T0 + 3000)]));
    expect(series('binance', 'usdt', 'BTC')).toMatchObject({
      price: 64_000.123456789 / 1.01,
      movedAt: T0,
      change: -2.5,
      heardAt: 0,
    });
    expect(series('nobitex', 'toman', 'USDT')).toMatchObject({ price: 105_299, movedAt: T0 + 3000 });
    const draft = build(T0 + 3_600_000);
    expect(rowOf(draft, 'BTC')).toMatchObject({
      sell_usdt: 64_000.123456789,
      sell_irt: Math.round(64_000.123456789 * 105_299),
      change_24h: -2.5,
      as_of: iso(T0),
    });
    expect(rowOf(draft, 'USDT')?.as_of).toBe(iso(T0 + 3000));

    coin('BTC', 65_000, T0 + 3_700_000);
    expect(rowOf(build(T0 + 3_700_000), 'BTC')?.sell_usdt).toBe(65_650);
  });

  it('restores tether at updated_at when the snapshot has no USDT row', () => {
    const { builder, series } = setup({}, withUsdt.slice(1));
    builder.seed(committed([row('BTC', 64_000, T0)]));
    expect(series('nobitex', 'toman', 'USDT')).toMatchObject({ price: 105_299, movedAt: T0 + 60_000 });
  });

  it('leaves alone prices already set, and rows it cannot use', () => {
    const { builder, build, series, coin, tether } = setup();
    tether(100_000, T0 + 1);
    coin('BTC', 70_000, T0 + 1);
    builder.seed(
      committed([
        row('BTC', 64_000, T0),
        { ...row('ETH', 3100, T0), as_of: 'yesterday' },
        row('DOGE', 0, T0),
        row('XRP', 2, T0),
        row('USDT', 1, T0),
      ]),
    );
    expect(series('nobitex', 'toman', 'USDT')).toMatchObject({ price: 100_000, movedAt: T0 + 1 });
    expect(series('binance', 'usdt', 'BTC')).toMatchObject({ price: 70_000, movedAt: T0 + 1 });
    expect(series('binance', 'usdt', 'ETH').price).toBe(0);
    expect(series('binance', 'usdt', 'DOGE').price).toBe(0);
    expect(build(T0).rates.map((r) => r.symbol)).toEqual(['BTC', 'USDT']);
  });

  it('leaves tether unpriced when the snapshot had no tether rate', () => {
    const { builder, build, series } = setup();
    builder.seed(committed([row('BTC', 64_000, T0)], null));
    expect(series('nobitex', 'toman', 'USDT').price).toBe(0);
    expect(build(T0).usdt_irt).toBeNull();
  });

  it('restores a coin priced in toman into its toman source, publishing both stored prices exactly', () => {
    const { builder, build, series } = setup({ NERKH_MARKUP_PCT: '1' }, withUsdt, tomanSetup);
    builder.seed(
      committed([
        { ...row('BTC', 64_100.123456789, T0, 2.5, 6_750_000_001), source: 'wallex' },
        { ...row('ETH', 3228.8816, T0 + 1000, null, 340_000_000), source: 'wallex' },
        { ...row('USDT', 1, T0 + 3000), source: 'nobitex' },
      ]),
    );
    expect(series('wallex', 'toman', 'BTC')).toMatchObject({ price: 6_750_000_001 / 1.01, movedAt: T0 });
    const draft = build(T0 + 3_600_000);
    expect(rowOf(draft, 'BTC')).toMatchObject({
      sell_usdt: 64_100.123456789,
      sell_irt: 6_750_000_001,
      change_24h: 2.5,
      as_of: iso(T0),
    });
    expect(rowOf(draft, 'ETH')).toMatchObject({ sell_usdt: 3228.8816, sell_irt: 340_000_000 });
    expect(draft.source).toBe('nobitex+wallex');
  });

  it('restores each row into the source it names, so the row goes on naming it after a restart', () => {
    const { builder, build, series } = setup({}, withUsdt, tomanSetup);
    builder.seed(
      committed([
        // Priced by Nobitex in toman (Wallex, its first toman source, was down), and by Nobitex
        // in tether (Binance down); tether by Wallex.
        { ...row('BTC', 64_100, T0, 2.5, 6_750_000_000), source: 'nobitex', tether_source: null },
        { ...row('ETH', 3100, T0, null, 326_500_000), source: 'nobitex', tether_source: 'wallex' },
        { ...row('USDT', 1, T0, null, 105_300), source: 'wallex' },
      ]),
    );
    expect(series('nobitex', 'toman', 'BTC').price).toBe(6_750_000_000);
    expect(series('wallex', 'toman', 'BTC').price).toBe(0);
    expect(series('nobitex', 'usdt', 'ETH').price).toBe(3100);
    expect(series('nobitex', 'toman', 'ETH').price).toBe(0);
    expect(series('wallex', 'toman', 'USDT').price).toBe(105_299);
    expect(series('nobitex', 'toman', 'USDT').price).toBe(0);
    const draft = build(T0 + 60_000);
    expect(rowOf(draft, 'BTC')).toMatchObject({ sell_irt: 6_750_000_000, source: 'nobitex' });
    expect(rowOf(draft, 'USDT')).toMatchObject({ sell_irt: 105_299, source: 'wallex' });
    expect(draft.source).toBe('nobitex+wallex');
  });

  it('restores a row of an older nerkh, whose source is the label, into the first source of its route', () => {
    const { builder, build, series } = setup();
    builder.seed(committed([{ ...row('BTC', 64_000, T0), source: 'binance+nobitex' }]));
    expect(series('binance', 'usdt', 'BTC').price).toBe(64_000);
    expect(rowOf(build(T0 + 60_000), 'BTC')?.source).toBe('binance');
  });
});
