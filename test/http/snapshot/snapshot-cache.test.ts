import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { quickBrotli } from '../../../src/http/snapshot/body-encoding.ts';
import { SnapshotCache } from '../../../src/http/snapshot/snapshot-cache.ts';
import { SnapshotView } from '../../../src/http/snapshot/snapshot-view.ts';
import { createLogger } from '../../../src/logger.ts';
import { sampleSnapshot } from '../fixtures.ts';

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
    expect(cache.serves(3)).toBe(true);
    expect(cache.serves(4)).toBe(false);
  });

  it('takes no snapshot once closed', async () => {
    const cache = newCache();
    cache.close();
    await cache.offer({ id: 1, ...sampleSnapshot() });
    expect(cache.current()).toBeNull();
  });
});
