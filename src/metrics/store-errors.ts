import { Counter, type Registry } from 'prom-client';
import type { CollectorLease, OpenedStore } from '../store/types.ts';

/**
 * Counts the calls into a store capability that fail, by method name (a bounded label), and
 * passes everything else through unchanged. Methods run on the capability itself, so stores
 * with private fields keep working.
 */
function counted<T extends object>(capability: T, failed: (operation: string) => void): T {
  return new Proxy(capability, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      return (...args: unknown[]) => {
        const result: unknown = Reflect.apply(value, target, args);
        if (!(result instanceof Promise)) return result;
        return result.catch((error: unknown) => {
          failed(property);
          throw error;
        });
      };
    },
  });
}

/**
 * The opened store with every failing call counted in `nerkh_store_errors_total{operation}`
 * (docs/operations.md#metrics): one wrapper in the composition root instead of a counter at each caller.
 * The fenced stores the collector lease hands out are counted too.
 */
export function countStoreErrors(store: OpenedStore, registry: Registry): OpenedStore {
  const errors = new Counter({
    name: 'nerkh_store_errors_total',
    help: 'Store (SQLite or PostgreSQL) calls that failed, by operation.',
    labelNames: ['operation'],
    registers: [registry],
  });
  const failed = (operation: string) => errors.inc({ operation });
  const lease = store.collectorLease;
  const countedLease: CollectorLease | undefined =
    lease === undefined
      ? undefined
      : counted(
          {
            claim: (...args: Parameters<CollectorLease['claim']>) => lease.claim(...args),
            release: (...args: Parameters<CollectorLease['release']>) => lease.release(...args),
            leader: () => lease.leader(),
            storeFor: (term: number) => counted(lease.storeFor(term), failed),
          },
          failed,
        );
  return {
    ...store,
    snapshots: counted(store.snapshots, failed),
    keys: counted(store.keys, failed),
    keyRequests: counted(store.keyRequests, failed),
    ...(countedLease === undefined ? {} : { collectorLease: countedLease }),
  };
}
