import { MemoryKeyRequestStore } from '../../src/store/memory/key-request-store.ts';
import { MemoryApiKeyStore } from '../../src/store/memory/key-store.ts';
import { MemorySnapshotStore } from '../../src/store/memory/snapshot-store.ts';
import type { OpenedStore } from '../../src/store/types.ts';

/** A fresh set of in-memory stores, shaped as `openStore` returns a backend's. */
export async function openMemoryStore(): Promise<OpenedStore> {
  return {
    snapshots: new MemorySnapshotStore(),
    keys: new MemoryApiKeyStore(),
    keyRequests: new MemoryKeyRequestStore(),
    location: 'memory',
    close: async () => {},
  };
}
