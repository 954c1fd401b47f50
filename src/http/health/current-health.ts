import type { Snapshot } from '../../domain/rates.ts';
import type { SharedLimitState } from '../../limiter/fallback-limiter.ts';
import type { CollectorStatus } from '../../store/collector-status.ts';
import type { CollectorLeader, CollectorLease, CollectorStatusStore } from '../../store/types.ts';
import type { HealthReport } from '../../web/health-report.ts';
import { assessHealth, type StoreUnreachable } from './assessment.ts';

/** How long a collector report is reused, so unauthenticated health polls cannot load the store. */
const collectorStatusCacheMs = 1000;

interface HealthSources {
  /** Only read here; the collector writes it. */
  collectorStatus: Pick<CollectorStatusStore, 'getCollectorStatus'>;
  /** The lease electing the collector, where instances share the store. */
  collectorLease?: Pick<CollectorLease, 'leader'>;
  /** Whether rate limits are shared right now; undefined where they never are (in memory). */
  sharedLimits?: () => SharedLimitState | undefined;
  /** The served snapshot, or null before the first commit. */
  currentSnapshot(): Snapshot | null;
  /** Epoch milliseconds. */
  clock(): number;
  refreshSeconds: number;
  /** package.json version, reported as `releaseId`. */
  releaseId: string;
}

/**
 * The service's health right now, as `/v1/health` and the status page report it: the served
 * snapshot, the collector's last report, which instance leads the collector and whether rate limits
 * are shared, judged by `assessHealth`. The report and the lease are read from the store at most
 * once a second however often health is asked for.
 */
export function currentHealth(sources: HealthSources): () => Promise<HealthReport> {
  const { collectorStatus, collectorLease, sharedLimits, currentSnapshot, clock, refreshSeconds, releaseId } =
    sources;
  let cached: {
    atMs: number;
    report: CollectorStatus | null;
    leader?: CollectorLeader | null;
    storeUnreachable?: StoreUnreachable;
  } | null = null;
  return async () => {
    const nowMs = clock();
    if (cached === null || nowMs - cached.atMs >= collectorStatusCacheMs) {
      try {
        const [report, leader] = await Promise.all([
          collectorStatus.getCollectorStatus(),
          collectorLease?.leader(),
        ]);
        cached = { atMs: nowMs, report, ...(leader === undefined ? {} : { leader }) };
      } catch {
        // The store is down or cut off: the API still serves the snapshot and the keys it holds in
        // memory, so health says so (a warning) with the last report read, instead of failing.
        const since = cached?.storeUnreachable?.since ?? new Date(nowMs).toISOString();
        const { atMs: _readAt, ...last } = cached ?? { atMs: 0, report: null };
        cached = { ...last, atMs: nowMs, storeUnreachable: { since } };
      }
    }
    const snapshot = currentSnapshot();
    const limits = sharedLimits?.();
    return assessHealth({
      snapshot: snapshot ? { updated_at: snapshot.updated_at, count: snapshot.rates.length } : null,
      collector: cached.report,
      ...(cached.leader === undefined ? {} : { leader: cached.leader }),
      ...(limits === undefined ? {} : { sharedLimits: limits }),
      ...(cached.storeUnreachable === undefined ? {} : { storeUnreachable: cached.storeUnreachable }),
      nowMs,
      refreshSeconds,
      releaseId,
    });
  };
}
