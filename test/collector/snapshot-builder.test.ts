import { describe, expect, it } from 'vitest';
import { type PublishedCoinPrice, SnapshotBuilder } from '../../src/collector/snapshot-builder.ts';
import { loadConfig } from '../../src/config.ts';
import { parseCatalog } from '../../src/domain/catalog.ts';
import type { Snapshot, SnapshotDraft } from '../../src/domain/rates.ts';

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

/** A price set by hand, as a source or a restart would set it. */
class HandSetPrice implements PublishedCoinPrice {
  price = 0;
  movedAt = 0;
  change: number | null = null;

  set(price: number, movedAt: number, change: number | null = null): void {
    this.price = price;
    this.movedAt = movedAt;
    this.change = change;
  }

  seed(price: number, asOf: number): void {
    this.set(price, asOf, this.change);
  }
}

const withUsdt = [
  { symbol: 'USDT', name_fa: 'تتر', pair: null },
  { symbol: 'ETH', name_fa: 'اتریوم', pair: 'ETHUSDT' },
  { symbol: 'BTC', name_fa: 'بیت‌کوین', pair: 'BTCUSDT' },
  { symbol: 'ZEC', name_fa: 'زی‌کش', pair: 'ZECUSDT' },
  { symbol: 'DOGE', name_fa: 'دوج‌کوین', pair: 'DOGEUSDT' },
];

function setup(env: Record<string, string> = {}, entries: unknown[] = withUsdt) {
  const config = loadConfig({ NERKH_PUBLIC_URL: 'https://rates.example', ...env });
  const tether = new HandSetPrice();
  const prices = new Map<string, HandSetPrice>();
  const builder = new SnapshotBuilder({
    catalog: parseCatalog(entries),
    config,
    tether,
    coinPrice: (pair) => {
      const price = new HandSetPrice();
      prices.set(pair, price);
      return price;
    },
  });
  const coin = (pair: string) => prices.get(pair) as HandSetPrice;
  return { builder, tether, coin, prices };
}

const rowOf = (draft: SnapshotDraft, symbol: string) => draft.rates.find((row) => row.symbol === symbol);

describe('SnapshotBuilder: rows', () => {
  it('asks once for the price of each catalog coin by its pair, and none for USDT', () => {
    const { prices } = setup();
    expect([...prices.keys()].sort()).toEqual(['BTCUSDT', 'DOGEUSDT', 'ETHUSDT', 'ZECUSDT']);
  });

  it('publishes priced coins sorted by symbol with the USDT row in its place, and leaves out unpriced ones', () => {
    const { builder, tether, coin } = setup();
    tether.set(105_299, T0);
    coin('ZECUSDT').set(30, T0);
    coin('ETHUSDT').set(3100.37, T0);
    coin('BTCUSDT').set(64_000.5, T0);
    const draft = builder.build(T0 + 120_000);
    expect(draft.updated_at).toBe(iso(T0 + 120_000));
    expect(draft.usdt_irt).toBe(105_299);
    expect(draft.rates.map((row) => row.symbol)).toEqual(['BTC', 'ETH', 'USDT', 'ZEC']);
  });

  it('writes each coin row from its price: toman as round(sell_usdt × usdt_irt), its change and its own as_of', () => {
    const { builder, tether, coin } = setup();
    tether.set(105_299, T0);
    coin('BTCUSDT').set(64_000.5, T0 + 1000, 2.25);
    coin('ETHUSDT').set(3100.37, T0 + 2000, null);
    const draft = builder.build(T0 + 60_000);
    expect(rowOf(draft, 'BTC')).toEqual({
      symbol: 'BTC',
      name_fa: 'بیت‌کوین',
      sell_usdt: 64_000.5,
      sell_irt: Math.round(64_000.5 * 105_299),
      change_24h: 2.25,
      as_of: iso(T0 + 1000),
      url: 'https://rates.example/coins/BTC',
    });
    expect(rowOf(draft, 'ETH')).toMatchObject({
      sell_irt: 326_465_861,
      change_24h: null,
      as_of: iso(T0 + 2000),
    });
  });

  it('makes the USDT row: sell_usdt 1, sell_irt = usdt_irt, no change, as_of of the tether price', () => {
    const { builder, tether } = setup();
    tether.set(105_299, T0 + 20_000);
    expect(builder.build(T0 + 30_000).rates).toEqual([
      {
        symbol: 'USDT',
        name_fa: 'تتر',
        sell_usdt: 1,
        sell_irt: 105_299,
        change_24h: null,
        as_of: iso(T0 + 20_000),
        url: 'https://rates.example/coins/USDT',
      },
    ]);
  });

  it('publishes sell_irt null and no USDT row while tether is unpriced', () => {
    const { builder, coin } = setup();
    coin('BTCUSDT').set(64_000, T0);
    const draft = builder.build(T0);
    expect(draft.usdt_irt).toBeNull();
    expect(draft.rates).toEqual([expect.objectContaining({ symbol: 'BTC', sell_irt: null })]);
  });

  it('publishes sell_irt null for a coin worth less than half a toman', () => {
    const { builder, tether, coin } = setup();
    tether.set(100_000, T0);
    coin('DOGEUSDT').set(0.000004, T0);
    expect(rowOf(builder.build(T0), 'DOGE')?.sell_irt).toBeNull();
  });

  it('applies the markup, with a per-symbol override, to sell_usdt and sell_irt', () => {
    const { builder, tether, coin } = setup({ NERKH_MARKUP_PCT: '1', NERKH_MARKUP_OVERRIDES: 'BTC=0.5' });
    tether.set(100_000, T0);
    coin('BTCUSDT').set(60_000, T0);
    coin('ETHUSDT').set(0.1, T0);
    const draft = builder.build(T0);
    expect(rowOf(draft, 'BTC')).toMatchObject({ sell_usdt: 60_300, sell_irt: 6_030_000_000 });
    expect(rowOf(draft, 'ETH')).toMatchObject({ sell_usdt: 0.101, sell_irt: 10_100 });
  });

  it('follows a price that moves between builds', () => {
    const { builder, tether, coin } = setup({ NERKH_MARKUP_PCT: '1' });
    tether.set(100_000, T0);
    coin('BTCUSDT').set(60_000, T0);
    expect(rowOf(builder.build(T0), 'BTC')).toMatchObject({ sell_usdt: 60_600, as_of: iso(T0) });
    coin('BTCUSDT').set(61_000, T0 + 5000);
    tether.set(101_000, T0 + 6000);
    const draft = builder.build(T0 + 10_000);
    expect(rowOf(draft, 'BTC')).toMatchObject({
      sell_usdt: 61_610,
      sell_irt: 6_222_610_000,
      as_of: iso(T0 + 5000),
    });
    expect(rowOf(draft, 'USDT')?.as_of).toBe(iso(T0 + 6000));
  });

  it('publishes usdt_irt and toman prices without a USDT row when the catalog does not list USDT', () => {
    const { builder, tether, coin } = setup({}, withUsdt.slice(1));
    tether.set(100_000, T0);
    coin('BTCUSDT').set(60_000, T0);
    const draft = builder.build(T0);
    expect(draft.usdt_irt).toBe(100_000);
    expect(draft.rates.map((row) => row.symbol)).toEqual(['BTC']);
    expect(rowOf(draft, 'BTC')?.sell_irt).toBe(6_000_000_000);
  });
});

describe('SnapshotBuilder.seed', () => {
  const committed = (rates: Snapshot['rates'], usdtIrt: number | null = 105_299): Snapshot => ({
    id: 7,
    updated_at: iso(T0 + 60_000),
    usdt_irt: usdtIrt,
    rates,
  });
  const row = (symbol: string, sellUsdt: number, asOf: number, change: number | null = 1.5) => ({
    symbol,
    name_fa: 'نام',
    sell_usdt: sellUsdt,
    sell_irt: null,
    change_24h: change,
    as_of: iso(asOf),
    url: `https://rates.example/coins/${symbol}`,
  });

  it('restores each price, its as_of and change, and publishes the stored sell_usdt exactly until the ask moves', () => {
    const { builder, tether, coin } = setup({ NERKH_MARKUP_PCT: '1' });
    // More digits than a markup computation keeps: republished as stored, not recomputed.
    builder.seed(committed([row('BTC', 64_000.123456789, T0, -2.5), row('USDT', 1, T0 + 3000)]));
    expect(coin('BTCUSDT')).toMatchObject({ price: 64_000.123456789 / 1.01, movedAt: T0, change: -2.5 });
    expect(tether).toMatchObject({ price: 105_299, movedAt: T0 + 3000 });
    const draft = builder.build(T0 + 3_600_000);
    expect(rowOf(draft, 'BTC')).toMatchObject({
      sell_usdt: 64_000.123456789,
      sell_irt: Math.round(64_000.123456789 * 105_299),
      change_24h: -2.5,
      as_of: iso(T0),
    });
    expect(rowOf(draft, 'USDT')?.as_of).toBe(iso(T0 + 3000));

    coin('BTCUSDT').set(65_000, T0 + 3_700_000);
    expect(rowOf(builder.build(T0 + 3_700_000), 'BTC')?.sell_usdt).toBe(65_650);
  });

  it('restores tether at updated_at when the snapshot has no USDT row', () => {
    const { builder, tether } = setup({}, withUsdt.slice(1));
    builder.seed(committed([row('BTC', 64_000, T0)]));
    expect(tether).toMatchObject({ price: 105_299, movedAt: T0 + 60_000 });
  });

  it('leaves alone prices already set, and rows it cannot use', () => {
    const { builder, tether, coin } = setup();
    tether.set(100_000, T0 + 1);
    coin('BTCUSDT').set(70_000, T0 + 1);
    builder.seed(
      committed([
        row('BTC', 64_000, T0),
        { ...row('ETH', 3100, T0), as_of: 'yesterday' },
        row('DOGE', 0, T0),
        row('XRP', 2, T0),
        row('USDT', 1, T0),
      ]),
    );
    expect(tether).toMatchObject({ price: 100_000, movedAt: T0 + 1 });
    expect(coin('BTCUSDT')).toMatchObject({ price: 70_000, movedAt: T0 + 1 });
    expect(coin('ETHUSDT').price).toBe(0);
    expect(coin('DOGEUSDT').price).toBe(0);
    expect(builder.build(T0).rates.map((r) => r.symbol)).toEqual(['BTC', 'USDT']);
  });

  it('leaves tether unpriced when the snapshot had no tether rate', () => {
    const { builder, tether } = setup();
    builder.seed(committed([row('BTC', 64_000, T0)], null));
    expect(tether.price).toBe(0);
    expect(builder.build(T0).usdt_irt).toBeNull();
  });
});
