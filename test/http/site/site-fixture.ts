import Fastify, { type FastifyInstance } from 'fastify';
import type { SnapshotDraft } from '../../../src/domain/rates.ts';
import { assessHealth } from '../../../src/http/health-assessment.ts';
import { installProblemHandlers } from '../../../src/http/problem-handlers.ts';
import { loadContentSources } from '../../../src/http/site/content.ts';
import { SitePages } from '../../../src/http/site/pages.ts';
import { sitePlugin } from '../../../src/http/site/plugin.ts';
import { MemoryKeyRequestStore } from '../../../src/store/memory/key-request-store.ts';
import { MemorySnapshotStore } from '../../../src/store/memory/snapshot-store.ts';

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
    },
    {
      symbol: 'ETH',
      name_fa: 'اتریوم',
      sell_usdt: 3512.8,
      sell_irt: 215159000,
      change_24h: -0.52,
      as_of: '2025-06-01T08:02:10.500Z',
      url: `${publicUrl}/coins/ETH`,
    },
    {
      symbol: 'SHIB',
      name_fa: 'شیبا اینو',
      sell_usdt: 0.00001734,
      sell_irt: 1,
      change_24h: null,
      as_of: '2025-06-01T10:11:00.000Z',
      url: `${publicUrl}/coins/SHIB`,
    },
    {
      symbol: 'USDT',
      name_fa: 'تتر',
      sell_usdt: 1,
      sell_irt: 61250,
      change_24h: null,
      as_of: '2025-06-01T10:18:05.000Z',
      url: `${publicUrl}/coins/USDT`,
    },
  ],
};

export interface SiteFixture {
  app: FastifyInstance;
  keyRequests: MemoryKeyRequestStore;
  /** Moves the fake clock. */
  advance(ms: number): void;
}

export async function buildSite(
  options: { withSnapshot?: boolean; requestsPerHour?: number } = {},
): Promise<SiteFixture> {
  const snapshots = new MemorySnapshotStore();
  const snapshot = options.withSnapshot === false ? null : await snapshots.commitSnapshot(snapshotDraft);
  const keyRequests = new MemoryKeyRequestStore();
  let now = fixedNow;
  const clock = () => now;
  const app = Fastify({ logger: false });
  installProblemHandlers(app, publicUrl);
  const pages = new SitePages({
    settings: {
      publicUrl,
      disclaimer:
        'Rates are informational only. The final rate of an order is fixed when the order is placed in the user panel.',
      sourceLabel: 'binance+nobitex',
      refreshSeconds: 600,
      rateLimit: 60,
      rateWindowSeconds: 60,
    },
    content: loadContentSources(),
    currentSnapshot: () => snapshot,
    history: snapshots,
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
  await app.register(sitePlugin, {
    pages,
    keyRequests,
    formSecret: 'test-secret-0123456789abcdef0123456789',
    clock,
    ...(options.requestsPerHour === undefined ? {} : { requestsPerHour: options.requestsPerHour }),
  });
  await app.ready();
  return {
    app,
    keyRequests,
    advance(ms) {
      now += ms;
    },
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
];
