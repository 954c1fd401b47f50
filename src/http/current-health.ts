import type { CollectorStatus } from '../collector/collector-status.ts';
import type { Snapshot } from '../domain/rates.ts';
import type { CollectorStatusStore } from '../store/types.ts';
import { assessHealth, type HealthReport } from './health-assessment.ts';

/** How long a collector report is reused, so unauthenticated health polls cannot load the store. */
const collectorStatusCacheMs = 1000;

interface HealthSources {
  /** Only read here; the collector writes it. */
  collectorStatus: Pick<CollectorStatusStore, 'getCollectorStatus'>;
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
 * snapshot and the collector's last report, judged by `assessHealth`. The report is read from the
 * store at most once a second however often health is asked for.
 */
export function currentHealth(sources: HealthSources): () => Promise<HealthReport> {
  const { collectorStatus, currentSnapshot, clock, refreshSeconds, releaseId } = sources;
  let cached: { atMs: number; report: CollectorStatus | null } | null = null;
  return async () => {
    const nowMs = clock();
    if (cached === null || nowMs - cached.atMs >= collectorStatusCacheMs) {
      cached = { atMs: nowMs, report: await collectorStatus.getCollectorStatus() };
    }
    const snapshot = currentSnapshot();
    return assessHealth({
      snapshot: snapshot ? { updated_at: snapshot.updated_at, count: snapshot.rates.length } : null,
      collector: cached.report,
      nowMs,
      refreshSeconds,
      releaseId,
    });
  };
}
