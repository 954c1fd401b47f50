import { brotliDecompressSync } from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/catalog-file.ts';
import type { Snapshot } from '../../src/domain/rates.ts';
import { assessHealth } from '../../src/http/health/assessment.ts';
import { KeyRequestIntake } from '../../src/key-requests/key-request-intake.ts';
import { fontPath } from '../../src/site/font.ts';
import { sitePagesByLanguage } from '../../src/site/pages/site-pages.ts';
import { sitePlugin } from '../../src/site/plugin.ts';
import { MemoryKeyRequestStore } from '../../src/store/memory/key-request-store.ts';
import { MemorySnapshotStore } from '../../src/store/memory/snapshot-store.ts';
import { wholeCatalogDay } from '../support/whole-catalog.ts';

/**
 * The size budget of a first visit (HTML with its inline CSS, plus the font) with the whole bundled
 * catalog and a day of snapshots at the default 10-minute refresh: the coins list is the largest
 * page, a row and a sparkline per coin. The browser tests hold the same budget with the fixture's
 * few coins.
 */
const budget = 150 * 1024;
const catalog = loadCatalog();
const publicUrl = 'https://rates.example.ir';
const end = Date.parse('2026-06-01T10:00:00.000Z');

let app: FastifyInstance;
beforeAll(async () => {
  const snapshots = new MemorySnapshotStore();
  let served: Snapshot | null = null;
  for (const draft of wholeCatalogDay(publicUrl, end)) served = await snapshots.commitSnapshot(draft);
  app = Fastify({ logger: false });
  const pages = sitePagesByLanguage({
    catalog,
    settings: {
      publicUrl,
      disclaimer: 'Informational.',
      refreshSeconds: 600,
      rateLimit: 60,
      rateWindowSeconds: 60,
    },
    currentSnapshot: () => served,
    history: snapshots,
    health: async () =>
      assessHealth({
        snapshot: { updated_at: new Date(end).toISOString(), count: catalog.length },
        collector: null,
        nowMs: end,
        refreshSeconds: 600,
        releaseId: '0.1.0',
      }),
    clock: () => end,
  });
  const formSecret = 'test-secret-0123456789abcdef0123456789';
  await app.register(sitePlugin, {
    pages,
    keyRequests: new KeyRequestIntake({
      store: new MemoryKeyRequestStore(),
      secret: formSecret,
      requestsPerHour: 5,
      clock: () => end,
      announce: () => {},
    }),
    formSecret,
  });
}, 60_000);
afterAll(async () => {
  await app?.close();
});

describe('first visit with the whole catalog', () => {
  it.each(['/coins', '/fa/coins', '/coins/BTC', '/fa/coins/BTC', '/docs', '/fa/docs', '/fa/docs/errors'])(
    `%s sends HTML and font within ${budget / 1024} kB, compressed for a browser`,
    async (path) => {
      const page = await app.inject({ url: path, headers: { 'accept-encoding': 'gzip, deflate, br, zstd' } });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-encoding']).toBe('br');
      expect(page.headers.vary).toContain('Accept-Encoding');
      expect(brotliDecompressSync(page.rawPayload).toString()).toMatch(/^<!doctype html>/);
      const font = await app.inject({ url: fontPath });
      expect(page.rawPayload.length + font.rawPayload.length).toBeLessThanOrEqual(budget);
    },
  );

  it('lists every coin of the catalog on the coins page', async () => {
    const html = (await app.inject({ url: '/fa/coins' })).body;
    expect(html.match(/<tr id="/g)).toHaveLength(catalog.length);
  });
});
