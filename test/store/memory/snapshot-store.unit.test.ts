import { describe, expect, it } from 'vitest';
import { MemorySnapshotStore } from '../../../src/store/memory/snapshot-store.ts';
import { openMemoryStore } from '../../support/memory-store.ts';
import { describeSnapshotStoreContract, draftAt } from '../snapshot-store-contract.ts';

describeSnapshotStoreContract('MemorySnapshotStore', openMemoryStore);

describe('MemorySnapshotStore', () => {
  it('keeps serving the latest snapshot past its retention bound', async () => {
    const store = new MemorySnapshotStore(2);
    for (let minute = 0; minute < 5; minute++) await store.commitSnapshot(draftAt(minute));
    expect(await store.latestSnapshot()).toEqual({ id: 5, ...draftAt(4) });
  });
});
