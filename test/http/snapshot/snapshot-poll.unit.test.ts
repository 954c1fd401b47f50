import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { SnapshotCache } from '../../../src/http/snapshot/snapshot-cache.ts';
import { SnapshotPoll } from '../../../src/http/snapshot/snapshot-poll.ts';
import { createLogger } from '../../../src/logger.ts';
import { MemorySnapshotStore } from '../../../src/store/memory/snapshot-store.ts';
import { LogCapture, sampleSnapshot } from '../../support/test-app.ts';

const labels = { source: 'binance+nobitex', disclaimer: 'Informational.', refreshSeconds: 600 };

function polled(store: MemorySnapshotStore, logs?: LogCapture) {
  const logger = logs === undefined ? createLogger('silent') : createLogger('info', logs);
  const cache = new SnapshotCache({ labels, logger });
  const poll = new SnapshotPoll({ store, cache, logger, pollMs: 60_000 });
  onTestFinished(() => {
    poll.close();
    cache.close();
  });
  return { cache, poll };
}

describe('SnapshotPoll', () => {
  it("serves the store's latest snapshot from its start, and a later commit once it polls", async () => {
    const store = new MemorySnapshotStore();
    await store.commitSnapshot(sampleSnapshot());
    const { cache, poll } = polled(store);
    await poll.start();
    expect(cache.current()?.snapshot.id).toBe(1);

    await store.commitSnapshot(sampleSnapshot('2025-01-01T12:10:00.000Z'));
    expect(cache.current()?.snapshot.id).toBe(1);
    await poll.refresh();
    expect(cache.current()?.snapshot.id).toBe(2);
    expect(cache.current()?.snapshot.updated_at).toBe('2025-01-01T12:10:00.000Z');
  });

  it('starts with nothing to serve before the first commit', async () => {
    const { cache, poll } = polled(new MemorySnapshotStore());
    await poll.start();
    expect(cache.current()).toBeNull();
  });

  it('keeps serving the last snapshot when the store fails, and says so', async () => {
    const store = new MemorySnapshotStore();
    await store.commitSnapshot(sampleSnapshot());
    const logs = new LogCapture();
    const { cache, poll } = polled(store, logs);
    await poll.start();
    await store.commitSnapshot(sampleSnapshot('2025-01-01T12:10:00.000Z'));
    vi.spyOn(store, 'latestSnapshot').mockRejectedValueOnce(new Error('store is down'));
    await poll.refresh();
    expect(cache.current()?.snapshot.id).toBe(1);
    expect(logs.text).toContain('polling the snapshot store failed; serving the last snapshot');
    // The next poll reads it again.
    await poll.refresh();
    expect(cache.current()?.snapshot.id).toBe(2);
  });
});
