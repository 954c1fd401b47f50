import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { loadCatalog } from '../../src/catalog/catalog-file.ts';
import { loadConfig } from '../../src/config.ts';
import type { Snapshot } from '../../src/domain/rates.ts';
import { leadCollector } from '../../src/leadership/lead-collector.ts';
import { createLogger } from '../../src/logger.ts';
import { ExchangeSimulator } from '../../src/simulator/exchange-simulator.ts';
import { loadSources } from '../../src/sources/load-sources.ts';
import { MemorySnapshotStore } from '../../src/store/memory/snapshot-store.ts';
import type { CollectorLease } from '../../src/store/types.ts';
import { sampleSnapshot } from '../support/test-app.ts';
import { sleep, waitFor } from '../support/wait.ts';

const catalog = loadCatalog().filter((entry) => ['USDT', 'BTC', 'ETH'].includes(entry.symbol));
const refreshMs = 1000;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * A simulated exchange and the store of term 7, where the previous leader committed its last
 * snapshot `agoMs` ago; the lease hands out that store for that term only.
 */
async function rig(agoMs: number) {
  const sim = await ExchangeSimulator.start({ catalog, seed: 3, retryAfterSeconds: 0 });
  cleanups.push(() => sim.stop());
  const store = new MemorySnapshotStore();
  const previous = await store.commitSnapshot(sampleSnapshot(new Date(Date.now() - agoMs).toISOString()));
  const lease: CollectorLease = {
    claim: () => Promise.reject(new Error('not used')),
    release: () => Promise.reject(new Error('not used')),
    leader: () => Promise.resolve(null),
    storeFor: (term) => {
      if (term !== 7) throw new Error(`no store for term ${term}`);
      return store;
    },
  };
  const config = loadConfig({
    NERKH_DATA_DIR: '/nonexistent',
    NERKH_BINANCE_WS_URL: sim.wsBaseUrl,
    NERKH_BINANCE_REST_URL: sim.restBaseUrl,
    NERKH_NOBITEX_URL: sim.nobitexBaseUrl,
    LOG_LEVEL: 'silent',
  });
  const controller = new AbortController();
  const leading = () =>
    leadCollector(7, controller.signal, {
      lease,
      config,
      catalog,
      sources: loadSources(config, catalog),
      logger: createLogger('silent'),
      tuning: { refreshMs, firstCommitGraceMs: 500, pollMs: 100, minPollMs: 100 },
    });
  return { sim, store, previous, controller, leading };
}

const committedAfter = async (store: MemorySnapshotStore, previous: Snapshot) =>
  (await store.latestSnapshotId()) > previous.id ? store.latestSnapshot() : null;

describe('leadCollector', () => {
  it('takes up the cadence of the last committed snapshot: its first commit comes one interval after it, not before', async () => {
    const { sim, store, previous, controller, leading } = await rig(refreshMs - 600);
    const running = leading();
    onTestFinished(async () => {
      controller.abort();
      await running;
    });
    // Until the next snapshot is due it does not even connect to the sources.
    await sleep(300);
    expect(sim.connectionCount).toBe(0);
    const first = await waitFor(() => committedAfter(store, previous), 5000, 'the first commit');
    expect(Date.parse(first.updated_at) - Date.parse(previous.updated_at)).toBeGreaterThanOrEqual(refreshMs);

    controller.abort();
    await running;
    const lastId = await store.latestSnapshotId();
    await sleep(2 * refreshMs);
    expect(await store.latestSnapshotId()).toBe(lastId);
  });

  it('commits at once when the last snapshot is overdue', async () => {
    const { store, previous, controller, leading } = await rig(5 * refreshMs);
    const startedMs = Date.now();
    const running = leading();
    onTestFinished(async () => {
      controller.abort();
      await running;
    });
    await waitFor(() => committedAfter(store, previous), 5000, 'the first commit');
    // Within the first-commit grace period, as any collector starting up.
    expect(Date.now() - startedMs).toBeLessThan(1500);
  });

  it('ends without connecting to a source when leadership ends while it waits', async () => {
    const { sim, store, previous, controller, leading } = await rig(0);
    const running = leading();
    await sleep(100);
    controller.abort();
    await running;
    expect(sim.connectionCount).toBe(0);
    expect(await store.latestSnapshotId()).toBe(previous.id);
  });
});
