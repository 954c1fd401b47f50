import { setTimeout as sleep } from 'node:timers/promises';
import { type PipelineDeps, startPipeline } from '../collector/pipeline.ts';
import type { CollectorLease } from '../store/types.ts';

interface LeadCollectorOptions extends Omit<PipelineDeps, 'store'> {
  lease: CollectorLease;
  /** Epoch milliseconds; default Date.now. */
  clock?: () => number;
}

/** Resolves when `signal` aborts (at once if it already has). */
function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/**
 * What the elected collector does under `term`: it waits until the next snapshot is due on the
 * cadence of the last one committed (by itself or by the leader before it), so a change of leader
 * never puts two snapshots in one interval; then it connects to the sources and commits through
 * the store fenced by its term, until `signal` says it no longer leads.
 */
export async function leadCollector(
  term: number,
  signal: AbortSignal,
  options: LeadCollectorOptions,
): Promise<void> {
  const { lease, clock = Date.now, ...deps } = options;
  const store = lease.storeFor(term);
  const refreshMs = deps.tuning?.refreshMs ?? deps.config.NERKH_REFRESH_SECONDS * 1000;
  const last = await store.latestSnapshot();
  const waitMs = last === null ? 0 : Date.parse(last.updated_at) + refreshMs - clock();
  if (waitMs > 0) {
    deps.logger.info(
      { term, next_snapshot_at: new Date(clock() + waitMs).toISOString() },
      'collector starts when the next snapshot is due',
    );
    await sleep(waitMs, undefined, { signal }).catch(() => {});
  }
  if (signal.aborted) return;
  const pipeline = await startPipeline({ ...deps, store });
  await aborted(signal);
  await pipeline.stop();
}
