import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { countStoreErrors } from '../../src/metrics/store-errors.ts';
import { openMemoryStore } from '../support/memory-store.ts';

describe('countStoreErrors', () => {
  it('counts failed store calls by operation and passes results and errors through unchanged', async () => {
    const registry = new Registry();
    const opened = await openMemoryStore();
    const store = countStoreErrors(opened, registry);
    opened.snapshots.commitSnapshot = async () => {
      throw new Error('read-only database');
    };
    expect(await store.snapshots.latestSnapshotId()).toBe(0);
    await expect(
      store.snapshots.commitSnapshot({ updated_at: '', source: '', usdt_irt: null, rates: [] }),
    ).rejects.toThrow('read-only database');
    await expect(
      store.snapshots.commitSnapshot({ updated_at: '', source: '', usdt_irt: null, rates: [] }),
    ).rejects.toThrow();
    const scrape = await registry.metrics();
    expect(scrape).toContain('nerkh_store_errors_total{operation="commitSnapshot"} 2');
    expect(scrape).not.toContain('operation="latestSnapshotId"');
  });
});
