import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { quickBrotli } from '../../../src/http/snapshot/body-encoding.ts';
import { SnapshotCache } from '../../../src/http/snapshot/snapshot-cache.ts';
import { SnapshotView } from '../../../src/http/snapshot/snapshot-view.ts';
import { createLogger } from '../../../src/logger.ts';
import { sampleSnapshot } from '../../support/test-app.ts';

const labels = { source: 'binance+nobitex', disclaimer: 'Informational.', refreshSeconds: 600 };

function newCache(): SnapshotCache {
  const cache = new SnapshotCache({ labels, logger: createLogger('silent') });
  onTestFinished(() => cache.close());
  return cache;
}

describe('SnapshotCache', () => {
  it('serves its first snapshot with a quick br, then the best; a later snapshot at the best at once', async () => {
    const cache = newCache();
    expect(cache.current()).toBeNull();
    await cache.offer({ id: 1, ...sampleSnapshot() });
    const first = cache.current() as SnapshotView;
    // Read before anything else is awaited: the best quality is being made in the background.
    const servedFirst = first.all.br.etag;
    const bestFirst = await SnapshotView.build({ id: 1, ...sampleSnapshot() }, labels);
    expect(servedFirst).toBe(`"1-${Date.parse(sampleSnapshot().updated_at).toString(36)}-br${quickBrotli}"`);
    await vi.waitFor(() => expect(first.all.br.etag).toBe(bestFirst.all.br.etag));

    const later = { id: 2, ...sampleSnapshot('2025-01-01T12:10:00.000Z') };
    await cache.offer(later);
    const second = cache.current() as SnapshotView;
    expect(second.snapshot.id).toBe(2);
    expect(second.all.br.etag).toBe((await SnapshotView.build(later, labels)).all.br.etag);
  });

  it('keeps the view it serves when offered the same snapshot again', async () => {
    const cache = newCache();
    await cache.offer({ id: 3, ...sampleSnapshot() });
    const served = cache.current();
    await cache.offer({ id: 3, ...sampleSnapshot() });
    expect(cache.current()).toBe(served);
    expect(cache.holds(3)).toBe(true);
    expect(cache.holds(4)).toBe(false);
  });

  it('ignores a snapshot older than the one it serves, offered late (a poll that read it before a commit)', async () => {
    const cache = newCache();
    await cache.offer({ id: 5, ...sampleSnapshot('2025-01-01T12:10:00.000Z') });
    await cache.offer({ id: 4, ...sampleSnapshot('2025-01-01T12:00:00.000Z') });
    expect(cache.current()?.snapshot.id).toBe(5);
  });

  it("takes a replaced store's snapshot: a lower id, committed later", async () => {
    const cache = newCache();
    await cache.offer({ id: 5, ...sampleSnapshot('2025-01-01T12:10:00.000Z') });
    await cache.offer({ id: 1, ...sampleSnapshot('2025-01-01T12:20:00.000Z') });
    expect(cache.current()?.snapshot.id).toBe(1);
  });

  it('serves the newest of the snapshots offered while it encodes one, skipping those between', async () => {
    const cache = newCache();
    const first = cache.offer({ id: 1, ...sampleSnapshot('2025-01-01T12:00:00.000Z') });
    void cache.offer({ id: 2, ...sampleSnapshot('2025-01-01T12:10:00.000Z') });
    const last = cache.offer({ id: 3, ...sampleSnapshot('2025-01-01T12:20:00.000Z') });
    expect(cache.holds(3)).toBe(true);
    await first;
    await last;
    expect(cache.current()?.snapshot.id).toBe(3);
  });

  it('takes no snapshot once closed', async () => {
    const cache = newCache();
    cache.close();
    await cache.offer({ id: 1, ...sampleSnapshot() });
    expect(cache.current()).toBeNull();
  });
});
