import { beforeEach, describe, expect, it } from 'vitest';
import { RateRowSchema, type SnapshotDraft } from '../../src/domain/rates.ts';
import type { CollectorStatus } from '../../src/store/collector-status.ts';
import type {
  CollectorStatusStore,
  OpenedStore,
  PriceAcceptanceStore,
  SnapshotStore,
} from '../../src/store/types.ts';

export function draftAt(
  minute: number,
  usdtIrt: number | null = 105_299,
  source = 'binance+nobitex',
): SnapshotDraft {
  const at = (offset: number) => new Date(Date.UTC(2026, 2, 1, 10, minute, offset)).toISOString();
  return {
    updated_at: at(0),
    source,
    usdt_irt: usdtIrt,
    rates: [
      {
        symbol: 'BTC',
        name_fa: 'بیت‌کوین',
        sell_usdt: 64_000.01 + minute,
        sell_irt: usdtIrt === null ? null : Math.round((64_000.01 + minute) * usdtIrt),
        change_24h: -1.234,
        as_of: at(-7),
        url: 'https://rates.example/coins/BTC',
        source: 'binance',
        tether_source: usdtIrt === null ? null : 'nobitex',
      },
      {
        symbol: 'SHIB',
        name_fa: 'شیبا اینو',
        sell_usdt: 0.00001234,
        sell_irt: usdtIrt === null ? null : 1,
        change_24h: null,
        as_of: at(-59),
        url: 'https://rates.example/coins/SHIB',
        source: 'binance',
        tether_source: usdtIrt === null ? null : 'nobitex',
      },
    ],
  };
}

const status: CollectorStatus = {
  reported_at: '2026-03-01T10:00:05.000Z',
  refresh_seconds: 600,
  sources: [
    {
      source: 'binance',
      state: 'degraded',
      detail: 'reconnecting in 4.2 s after: stalled 30 s',
      last_message_at: '2026-03-01T09:59:30.000Z',
      rejected: 3,
      reconnects: 1,
    },
    { source: 'nobitex', state: 'up', detail: 'polling', last_message_at: null, rejected: 0, reconnects: 0 },
  ],
};

/**
 * The behaviour every SnapshotStore + CollectorStatusStore must show, written once and run against
 * each implementation (one line in its test file), so no backend can drift from the others.
 * `open` gives a fresh, empty store for each test; the suite closes it after the test.
 */
export function describeSnapshotStoreContract(
  name: string,
  open: () => Promise<Pick<OpenedStore, 'snapshots' | 'close'>>,
): void {
  describe(`${name}: snapshot store contract`, () => {
    let store: SnapshotStore & CollectorStatusStore & PriceAcceptanceStore;
    beforeEach(async () => {
      const opened = await open();
      store = opened.snapshots;
      return () => opened.close();
    });

    it('has no snapshot and id 0 before the first commit', async () => {
      expect(await store.latestSnapshot()).toBeNull();
      expect(await store.latestSnapshotId()).toBe(0);
    });

    it('returns the committed snapshot with its id, and serves it as the latest, field for field', async () => {
      const draft = draftAt(0);
      const committed = await store.commitSnapshot(draft);
      expect(committed).toEqual({ id: committed.id, ...draft });
      expect(committed.id).toBeGreaterThan(0);
      expect(await store.latestSnapshot()).toEqual(committed);
      expect(await store.latestSnapshotId()).toBe(committed.id);
    });

    it('numbers commits with increasing ids and always serves the last one', async () => {
      const ids: number[] = [];
      for (let minute = 0; minute < 5; minute++) ids.push((await store.commitSnapshot(draftAt(minute))).id);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      expect(new Set(ids).size).toBe(5);
      expect(await store.latestSnapshot()).toEqual({ id: ids[4], ...draftAt(4) });
    });

    it('keeps null rates, tiny and large numbers and Persian names with ZWNJ exactly', async () => {
      await store.commitSnapshot(draftAt(1, null));
      const latest = await store.latestSnapshot();
      expect(latest?.usdt_irt).toBeNull();
      expect(latest?.rates[0]?.sell_irt).toBeNull();
      expect(latest?.rates[0]?.name_fa).toBe('بیت\u200Cکوین');
      expect(latest?.rates[1]?.sell_usdt).toBe(0.00001234);
      await store.commitSnapshot(draftAt(2));
      expect((await store.latestSnapshot())?.rates[0]?.sell_irt).toBe(Math.round(64_002.01 * 105_299));
    });

    it('keeps the label of the sources that priced each snapshot', async () => {
      await store.commitSnapshot(draftAt(1, 105_299, 'wallex'));
      expect((await store.latestSnapshot())?.source).toBe('wallex');
      await store.commitSnapshot(draftAt(2, 105_299, 'binance+nobitex+wallex'));
      expect((await store.latestSnapshot())?.source).toBe('binance+nobitex+wallex');
    });

    it("serves a snapshot an older nerkh committed, whose rows do not name their source, with the snapshot's label as each row's source and no tether source", async () => {
      // Rows as nerkh wrote them before each row named its source: the spec's fields only.
      const old = draftAt(4, 105_299, 'binance+nobitex');
      const oldRows = old.rates.map(({ source: _source, tether_source: _tether, ...row }) => row);
      const committed = await store.commitSnapshot({ ...old, rates: oldRows } as unknown as SnapshotDraft);
      const latest = await store.latestSnapshot();
      expect(latest).toEqual({
        ...old,
        id: committed.id,
        rates: old.rates.map((row) => ({ ...row, source: 'binance+nobitex', tether_source: null })),
      });
      // Served in the schema's order: the spec's fields, then the two the rows lacked.
      expect(Object.keys(latest?.rates[0] ?? {})).toEqual(Object.keys(RateRowSchema.properties));
      // A snapshot committed since names each row's own source again.
      await store.commitSnapshot(draftAt(5));
      expect((await store.latestSnapshot())?.rates[0]).toMatchObject({
        source: 'binance',
        tether_source: 'nobitex',
      });
    });

    it('is not changed by later changes to the draft or to a snapshot read from it', async () => {
      const draft = draftAt(3);
      await store.commitSnapshot(draft);
      draft.usdt_irt = 1;
      (draft.rates[0] as { sell_usdt: number }).sell_usdt = 1;
      const read = await store.latestSnapshot();
      if (read?.rates[1]) read.rates[1].sell_usdt = 2;
      expect(await store.latestSnapshot()).toMatchObject(draftAt(3));
    });

    const minuteAt = (minute: number) => new Date(Date.UTC(2026, 2, 1, 10, minute)).toISOString();

    it('has no price history before the first commit', async () => {
      const range = { from: minuteAt(0), to: minuteAt(60), maxPoints: 100 };
      expect(await store.priceHistory('BTC', range)).toEqual([]);
      expect(await store.priceHistories(range)).toEqual(new Map());
    });

    it("reads one symbol's sell prices in tether and toman inside the range, bounds included, oldest first", async () => {
      for (let minute = 0; minute < 6; minute++)
        await store.commitSnapshot(draftAt(minute, minute === 3 ? null : 105_299));
      const history = await store.priceHistory('BTC', { from: minuteAt(1), to: minuteAt(4), maxPoints: 100 });
      expect(history).toEqual(
        [1, 2, 3, 4].map((minute) => ({
          at: minuteAt(minute),
          sell_usdt: 64_000.01 + minute,
          sell_irt: minute === 3 ? null : Math.round((64_000.01 + minute) * 105_299),
        })),
      );
      expect(
        await store.priceHistory('DOGE', { from: minuteAt(0), to: minuteAt(9), maxPoints: 100 }),
      ).toEqual([]);
    });

    it('reads every symbol at once, each as its own read would', async () => {
      for (let minute = 0; minute < 4; minute++) await store.commitSnapshot(draftAt(minute));
      const range = { from: minuteAt(0), to: minuteAt(3), maxPoints: 100 };
      const all = await store.priceHistories(range);
      expect([...all.keys()].sort()).toEqual(['BTC', 'SHIB']);
      expect(all.get('BTC')).toEqual(await store.priceHistory('BTC', range));
      expect(all.get('SHIB')).toEqual(
        [0, 1, 2, 3].map((minute) => ({ at: minuteAt(minute), sell_usdt: 0.00001234, sell_irt: 1 })),
      );
    });

    it('thins a long history to the points asked for, keeping the first, the lowest, the highest and the last', async () => {
      // BTC climbs by one each minute; a dip at minute 7 and a spike at minute 20 must survive.
      for (let minute = 0; minute < 40; minute++) {
        const draft = draftAt(minute);
        const btc = draft.rates[0] as { sell_usdt: number };
        if (minute === 7) btc.sell_usdt = 10;
        if (minute === 20) btc.sell_usdt = 99_999;
        await store.commitSnapshot(draft);
      }
      const history = await store.priceHistory('BTC', { from: minuteAt(0), to: minuteAt(39), maxPoints: 13 });
      expect(history.length).toBeLessThanOrEqual(13);
      expect(history.length).toBeGreaterThan(4);
      const prices = history.map((point) => point.sell_usdt);
      expect(Math.min(...prices)).toBe(10);
      expect(Math.max(...prices)).toBe(99_999);
      expect(history[0]?.at).toBe(minuteAt(0));
      expect(history.at(-1)?.at).toBe(minuteAt(39));
      const times = history.map((point) => point.at);
      expect(times).toEqual([...times].sort());
    });

    it('stores the collector health report, the last one written winning', async () => {
      expect(await store.getCollectorStatus()).toBeNull();
      await store.putCollectorStatus({ ...status, reported_at: '2026-03-01T10:00:00.000Z' });
      await store.putCollectorStatus(status);
      expect(await store.getCollectorStatus()).toEqual(status);
    });

    it("keeps the last commit's outcome in the report, a failure with its error class", async () => {
      const failed: CollectorStatus = {
        ...status,
        last_commit: {
          outcome: 'failed',
          at: '2026-03-01T10:10:00.120Z',
          duration_ms: 12.5,
          error: 'SqliteError SQLITE_FULL',
          last_ok_at: '2026-03-01T10:00:00.090Z',
        },
      };
      await store.putCollectorStatus(failed);
      expect((await store.getCollectorStatus())?.last_commit).toEqual(failed.last_commit);
      const ok: CollectorStatus = {
        ...status,
        last_commit: {
          outcome: 'ok',
          at: '2026-03-01T10:20:00.100Z',
          duration_ms: 8,
          error: null,
          last_ok_at: '2026-03-01T10:20:00.100Z',
        },
      };
      await store.putCollectorStatus(ok);
      expect((await store.getCollectorStatus())?.last_commit).toEqual(ok.last_commit);
    });

    it('keeps the held prices in the report', async () => {
      const held: CollectorStatus = {
        ...status,
        held: [
          {
            symbol: 'SHIB',
            currency: 'toman',
            source: 'nobitex',
            price: 1.52,
            reference: 0.00152,
            reason: 'own-price',
            since: '2026-03-01T10:05:00.000Z',
            served_by: 'binance',
          },
        ],
      };
      await store.putCollectorStatus(held);
      expect((await store.getCollectorStatus())?.held).toEqual(held.held);
    });

    it("keeps the operator's price acceptances, read after an id and since a time, oldest first", async () => {
      const draft = {
        symbol: 'SHIB',
        currency: 'toman' as const,
        source: 'nobitex',
        price: 1.52,
        operator: 'sara',
        reason: 'Nobitex moved SHIB to a per-coin market',
      };
      expect(await store.priceAcceptances({})).toEqual([]);
      const first = await store.recordPriceAcceptance(draft, new Date('2026-03-01T10:00:00.000Z'));
      const second = await store.recordPriceAcceptance(
        { ...draft, symbol: 'BTC', currency: 'usdt', source: 'binance', price: 640_000.5 },
        new Date('2026-03-01T11:00:00.000Z'),
      );
      expect(first).toEqual({ ...draft, id: first.id, accepted_at: '2026-03-01T10:00:00.000Z' });
      expect(second.id).toBeGreaterThan(first.id);
      expect(await store.priceAcceptances({})).toEqual([first, second]);
      expect(await store.priceAcceptances({ afterId: first.id })).toEqual([second]);
      expect(await store.priceAcceptances({ since: '2026-03-01T10:30:00.000Z' })).toEqual([second]);
      expect(await store.priceAcceptances({ afterId: second.id })).toEqual([]);
    });
  });
}
