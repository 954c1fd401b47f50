import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify';
import { afterEach } from 'vitest';
import { loadCatalog } from '../../src/catalog/catalog-file.ts';
import type { SnapshotDraft } from '../../src/domain/rates.ts';
import { assessHealth } from '../../src/http/health/assessment.ts';
import { KeyRequestIntake } from '../../src/key-requests/key-request-intake.ts';
import { sitePagesByLanguage } from '../../src/site/pages/site-pages.ts';
import { sitePlugin } from '../../src/site/plugin.ts';
import { MemoryKeyRequestStore } from '../../src/store/memory/key-request-store.ts';
import { MemorySnapshotStore } from '../../src/store/memory/snapshot-store.ts';
import { installProblemHandlers } from '../../src/web/problem-handlers.ts';

export const publicUrl = 'https://rates.example.ir';
export const fixedNow = Date.parse('2025-06-01T10:24:00.000Z');

/** A committed snapshot as the collector would write it: toman integers, Persian names, per-row as_of. */
export const snapshotDraft: SnapshotDraft = {
  updated_at: '2025-06-01T10:20:00.000Z',
  source: 'binance+nobitex',
  usdt_irt: 61250,
  rates: [
    {
      symbol: 'BTC',
      name_fa: 'بیت‌کوین',
      sell_usdt: 67321.45,
      sell_irt: 4123438813,
      change_24h: 1.84,
      as_of: '2025-06-01T10:19:42.118Z',
      url: `${publicUrl}/coins/BTC`,
      source: 'binance',
      tether_source: 'nobitex',
    },
    {
      symbol: 'ETH',
      name_fa: 'اتریوم',
      sell_usdt: 3512.8,
      sell_irt: 215159000,
      change_24h: -0.52,
      as_of: '2025-06-01T08:02:10.500Z',
      url: `${publicUrl}/coins/ETH`,
      source: 'binance',
      tether_source: 'nobitex',
    },
    {
      symbol: 'SHIB',
      name_fa: 'شیبا اینو',
      sell_usdt: 0.00001734,
      sell_irt: 1,
      change_24h: null,
      as_of: '2025-06-01T10:11:00.000Z',
      url: `${publicUrl}/coins/SHIB`,
      source: 'binance',
      tether_source: 'nobitex',
    },
    {
      symbol: 'USDT',
      name_fa: 'تتر',
      sell_usdt: 1,
      sell_irt: 61250,
      change_24h: null,
      as_of: '2025-06-01T10:18:05.000Z',
      url: `${publicUrl}/coins/USDT`,
      source: 'nobitex',
      tether_source: null,
    },
  ],
};

const hourMs = 3_600_000;
const servedAt = Date.parse(snapshotDraft.updated_at);

/**
 * A week of hourly snapshots before the served one. BTC in tether: 66,000 plus ten per hour of
 * the day, a spike to 70,000 five hours ago (the 24 h and 7 d high) and a dip to 50,000 thirty
 * hours ago (the 7 d low, outside the last 24 hours).
 */
export function weekOfSnapshots(): SnapshotDraft[] {
  const drafts: SnapshotDraft[] = [];
  for (let hoursAgo = 168; hoursAgo >= 1; hoursAgo--) {
    const btc = hoursAgo === 5 ? 70_000 : hoursAgo === 30 ? 50_000 : 66_000 + (hoursAgo % 24) * 10;
    drafts.push({
      ...snapshotDraft,
      updated_at: new Date(servedAt - hoursAgo * hourMs).toISOString(),
      rates: snapshotDraft.rates.map((row) =>
        row.symbol === 'BTC' ? { ...row, sell_usdt: btc, sell_irt: Math.round(btc * 61_250) } : row,
      ),
    });
  }
  return drafts;
}

export interface SiteFixture {
  app: FastifyInstance;
  keyRequests: MemoryKeyRequestStore;
  /** Price history reads the pages made of the store. */
  historyReads(): number;
  /** Moves the fake clock. */
  advance(ms: number): void;
}

export async function buildSite(
  options: {
    withSnapshot?: boolean;
    requestsPerHour?: number;
    /** Snapshots committed before the served one, oldest first: the price history. */
    earlier?: readonly SnapshotDraft[];
    /** The store fails every history read, as during a database outage. */
    historyFails?: boolean;
  } = {},
): Promise<SiteFixture> {
  const snapshots = new MemorySnapshotStore();
  for (const draft of options.earlier ?? []) await snapshots.commitSnapshot(draft);
  let historyReads = 0;
  const snapshot = options.withSnapshot === false ? null : await snapshots.commitSnapshot(snapshotDraft);
  const keyRequests = new MemoryKeyRequestStore();
  let now = fixedNow;
  const clock = () => now;
  const app = Fastify({ logger: false });
  installProblemHandlers(app, publicUrl);
  const pages = sitePagesByLanguage({
    catalog: loadCatalog(),
    settings: {
      publicUrl,
      disclaimer:
        'Rates are informational only. The final rate of an order is fixed when the order is placed in the user panel.',
      sourceLabel: 'binance+nobitex',
      refreshSeconds: 600,
      rateLimit: 60,
      rateWindowSeconds: 60,
    },
    currentSnapshot: () => snapshot,
    history: {
      priceHistory: async (symbol, range) => {
        historyReads++;
        if (options.historyFails) throw new Error('connection refused');
        return snapshots.priceHistory(symbol, range);
      },
      priceHistories: async (range) => {
        historyReads++;
        if (options.historyFails) throw new Error('connection refused');
        return snapshots.priceHistories(range);
      },
    },
    health: async () =>
      assessHealth({
        snapshot: snapshot ? { updated_at: snapshot.updated_at, count: snapshot.rates.length } : null,
        collector: null,
        nowMs: clock(),
        refreshSeconds: 600,
        releaseId: '0.1.0',
      }),
    clock,
  });
  const formSecret = 'test-secret-0123456789abcdef0123456789';
  await app.register(sitePlugin, {
    pages,
    keyRequests: new KeyRequestIntake({
      store: keyRequests,
      secret: formSecret,
      requestsPerHour: options.requestsPerHour ?? 5,
      clock,
      announce: () => {},
    }),
    formSecret,
    clock,
  });
  await app.ready();
  return {
    app,
    keyRequests,
    historyReads: () => historyReads,
    advance(ms) {
      now += ms;
    },
  };
}

type SiteOptions = NonNullable<Parameters<typeof buildSite>[0]>;

/**
 * A site per test, built on its first request with `options` and closed after the test: `get`
 * requests a page (with an Accept header if given), `fixture` is the site built so far.
 */
export function sitePerTest(options: SiteOptions = {}) {
  let site: SiteFixture | undefined;
  afterEach(async () => {
    await site?.app.close();
    site = undefined;
  });
  return {
    async get(path: string, accept?: string): Promise<LightMyRequestResponse> {
      site ??= await buildSite(options);
      return site.app.inject({ method: 'GET', url: path, headers: accept === undefined ? {} : { accept } });
    },
    /** Builds this test's site with other options (before its first request). */
    async rebuild(other: SiteOptions): Promise<void> {
      site = await buildSite(other);
    },
    fixture: () => site,
  };
}

/** Every page of the site with a path that renders in the fixture. */
export const pagePaths = [
  '/',
  '/docs',
  '/docs/errors',
  '/coins',
  '/coins/BTC',
  '/contact',
  '/contact/received',
  '/status',
  '/terms',
  '/clients',
];

/** The same pages in Persian. */
export const persianPagePaths = pagePaths.map((path) => (path === '/' ? '/fa' : `/fa${path}`));
