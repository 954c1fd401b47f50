import type { MemorySnapshotStore } from '../../src/store/memory/snapshot-store.ts';
import type { CollectorStatusStore, PriceAcceptanceStore, SnapshotStore } from '../../src/store/types.ts';

/** `store` with its commits made by `commitSnapshot` instead (one that waits, or fails), the rest as is. */
export function storeWithCommit(
  store: MemorySnapshotStore,
  commitSnapshot: SnapshotStore['commitSnapshot'],
): SnapshotStore & CollectorStatusStore & PriceAcceptanceStore {
  return {
    commitSnapshot,
    latestSnapshot: () => store.latestSnapshot(),
    latestSnapshotId: () => store.latestSnapshotId(),
    priceHistory: (symbol, range) => store.priceHistory(symbol, range),
    priceHistories: (range) => store.priceHistories(range),
    putCollectorStatus: (status) => store.putCollectorStatus(status),
    getCollectorStatus: () => store.getCollectorStatus(),
    recordPriceAcceptance: (draft, now) => store.recordPriceAcceptance(draft, now),
    priceAcceptances: (query) => store.priceAcceptances(query),
  };
}
