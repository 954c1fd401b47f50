import type { Static } from 'typebox';
import type { SharedLimitState } from '../../limiter/fallback-limiter.ts';
import type {
  CollectorStatus,
  CommitOutcome,
  HeldPrice,
  SourceHealth,
} from '../../store/collector-status.ts';
import type { CollectorLeader } from '../../store/types.ts';
import type { HealthCheckSchema, HealthReport, HealthSchema } from '../../web/health-report.ts';

type HealthStatus = 'pass' | 'warn' | 'fail';
type HealthBody = Static<typeof HealthSchema>;
/** A check entry; extension members (e.g. `rejected`) are allowed by the draft. */
type HealthCheck = Static<typeof HealthCheckSchema> & Record<string, unknown>;

/** A collector report older than this means the collector stopped (it reports every few seconds). */
const collectorStaleSeconds = 30;

interface HealthInput {
  /** The served snapshot, or null before the first commit. */
  snapshot: { updated_at: string; count: number } | null;
  collector: CollectorStatus | null;
  /**
   * The collector lease where instances elect their collector (null: no instance has led yet);
   * undefined where one process owns the store and no lease exists.
   */
  leader?: CollectorLeader | null;
  /** Whether the rate limits are shared right now (Redis); undefined where they never are. */
  sharedLimits?: SharedLimitState;
  /** Set while the store does not answer; the collector report and leader are then the last read. */
  storeUnreachable?: StoreUnreachable;
  nowMs: number;
  refreshSeconds: number;
  releaseId: string;
}

export interface StoreUnreachable {
  /** When reads of the store began failing (ISO time). */
  since: string;
}

const worse = (a: HealthStatus, b: HealthStatus): HealthStatus =>
  a === 'fail' || b === 'fail' ? 'fail' : a === 'warn' || b === 'warn' ? 'warn' : 'pass';

/**
 * Judges the service's freshness (content/docs.md "GET /v1/health"):
 * - pass: snapshot age ≤ 1.5 × refresh interval, every source up, collector reporting (and, where
 *   instances share the store and Redis, an instance leading the collector and limits shared);
 * - warn: age ≤ 3 × refresh, or the collector's last snapshot commit failed, or a source degraded or down, or the collector's report missing or
 *   older than 30 s, or no instance leading the collector, or each instance limiting on its own
 *   while Redis does not answer, or the store not answering (`store:connection`) — rates are
 *   still served, but may be getting old or over-admitted;
 * - each source's own check: pass when up, warn when degraded or when down while serving no coin
 *   (a fallback waiting), fail when down while rows depend on it; `coins` says how many rows;
 * - a price held at a unit-sized level (`prices:held`, one entry per coin, currency and source)
 *   warns: the coin is priced by its next source, or keeps its last price meanwhile;
 * - fail: no snapshot at all, or age > 3 × refresh.
 * Sources only ever warn the whole service: while the last snapshot is fresh it is still right to use.
 */
export function assessHealth(input: HealthInput): HealthReport {
  const { snapshot, collector, nowMs, refreshSeconds } = input;
  const checks: Record<string, HealthCheck[]> = {};
  let status: HealthStatus = 'pass';

  let ageSeconds: number | null = null;
  let nextRefreshAt: string | null = null;
  if (snapshot === null) {
    status = 'fail';
    checks['snapshot:age'] = [
      {
        componentType: 'datastore',
        status: 'fail',
        time: null,
        observedValue: null,
        observedUnit: 's',
        output: 'No rate snapshot has been committed yet.',
      },
    ];
  } else {
    const updatedMs = Date.parse(snapshot.updated_at);
    ageSeconds = Math.max(0, Math.floor((nowMs - updatedMs) / 1000));
    nextRefreshAt = new Date(updatedMs + refreshSeconds * 1000).toISOString();
    const ageStatus: HealthStatus =
      ageSeconds <= 1.5 * refreshSeconds ? 'pass' : ageSeconds <= 3 * refreshSeconds ? 'warn' : 'fail';
    status = worse(status, ageStatus);
    checks['snapshot:age'] = [
      {
        componentType: 'datastore',
        status: ageStatus,
        time: snapshot.updated_at,
        observedValue: ageSeconds,
        observedUnit: 's',
        output:
          ageStatus === 'pass'
            ? `Snapshot is ${ageSeconds} s old; refreshed every ${refreshSeconds} s.`
            : `Snapshot is ${ageSeconds} s old, more than ${ageStatus === 'warn' ? 1.5 : 3} × the ${refreshSeconds} s refresh interval.`,
      },
    ];
  }

  if (collector === null) {
    status = worse(status, 'warn');
    checks['collector:report'] = [
      {
        componentType: 'component',
        status: 'warn',
        time: null,
        observedValue: null,
        observedUnit: 's',
        output: 'The collector has not reported yet; source states are unknown.',
      },
    ];
  } else {
    const reportAge = Math.max(0, Math.floor((nowMs - Date.parse(collector.reported_at)) / 1000));
    const stale = reportAge > collectorStaleSeconds;
    if (stale) status = worse(status, 'warn');
    checks['collector:report'] = [
      {
        componentType: 'component',
        status: stale ? 'warn' : 'pass',
        time: collector.reported_at,
        observedValue: reportAge,
        observedUnit: 's',
        output: stale
          ? `The collector last reported ${reportAge} s ago; it may have stopped, source states below are old.`
          : `The collector reported ${reportAge} s ago.`,
      },
    ];
    if (collector.last_commit !== undefined) {
      const check = commitCheck(collector.last_commit);
      status = worse(status, check.status);
      checks['collector:commit'] = [check];
    }
    for (const source of collector.sources) {
      const sourceStatus = sourceCheckStatus(source);
      if (sourceStatus !== 'pass') status = worse(status, 'warn');
      checks[`${source.source}:connection`] = [
        {
          componentType: 'component',
          status: sourceStatus,
          time: source.last_message_at,
          observedValue: source.state,
          output: source.detail,
          last_message_at: source.last_message_at,
          rejected: source.rejected,
          reconnects: source.reconnects,
          ...(source.coins === undefined ? {} : { coins: source.coins }),
        },
      ];
    }
  }

  const held = collector?.held ?? [];
  if (held.length > 0) {
    status = worse(status, 'warn');
    checks['prices:held'] = held.map(heldCheck);
  }

  if (input.leader !== undefined) {
    const check = leaderCheck(input.leader);
    status = worse(status, check.status);
    checks['collector:leader'] = [check];
  }

  if (input.sharedLimits !== undefined) {
    const { shared, since, reason } = input.sharedLimits;
    if (!shared) status = worse(status, 'warn');
    checks['limiter:shared'] = [
      {
        componentType: 'datastore',
        status: shared ? 'pass' : 'warn',
        time: since,
        observedValue: shared ? 'shared' : 'local',
        output: shared
          ? 'Rate limits are shared by every instance through Redis.'
          : `Since ${since}: ${reason ?? 'Redis does not answer'}.`,
      },
    ];
  }

  if (input.storeUnreachable !== undefined) {
    const { since } = input.storeUnreachable;
    status = worse(status, 'warn');
    checks['store:connection'] = [
      {
        componentType: 'datastore',
        status: 'warn',
        time: since,
        observedValue: 'unreachable',
        // No driver message here: it can name hosts, ports or paths, and health needs no key.
        output: `Since ${since} the store does not answer; the last snapshot read and the keys already checked are still served.`,
      },
    ];
  }

  const body: HealthBody = {
    status,
    version: '1',
    releaseId: input.releaseId,
    serviceId: 'nerkh',
    description: 'nerkh: current sell rates of digital currencies in tether and toman',
    ...(status === 'pass' ? {} : { output: summary(checks) }),
    updated_at: snapshot?.updated_at ?? null,
    age_seconds: ageSeconds,
    next_refresh_at: nextRefreshAt,
    count: snapshot?.count ?? null,
    checks,
  };
  return { httpStatus: status === 'fail' ? 503 : 200, body };
}

/**
 * The collector's last snapshot commit: a failure warns at once, while the snapshot it could not
 * replace is still young enough to pass its own age check; the last good snapshot stays served.
 */
function commitCheck(commit: CommitOutcome): HealthCheck {
  const { outcome, at, duration_ms, error, last_ok_at } = commit;
  return {
    componentType: 'datastore',
    status: outcome === 'ok' ? 'pass' : 'warn',
    time: at,
    observedValue: outcome,
    output:
      outcome === 'ok'
        ? `The last snapshot commit succeeded in ${duration_ms} ms.`
        : `The last snapshot commit failed (${error ?? 'unknown error'}); the last good snapshot${last_ok_at === null ? '' : ` (committed ${last_ok_at})`} is still served.`,
    ...(error === null ? {} : { error }),
    last_ok_at,
  };
}

/** Which instance leads the collector; a lease that ran out (nobody leads) warns. */
function leaderCheck(leader: CollectorLeader | null): HealthCheck {
  if (leader === null) {
    return {
      componentType: 'component',
      status: 'warn',
      time: null,
      observedValue: null,
      output: 'No instance has led the collector yet.',
    };
  }
  const { instance, term, since, expiresAt, live } = leader;
  return {
    componentType: 'component',
    status: live ? 'pass' : 'warn',
    time: since,
    observedValue: instance,
    output: live
      ? `Instance ${instance} leads the collector (term ${term}).`
      : `The collector lease of instance ${instance} (term ${term}) ran out at ${expiresAt}; no instance leads until a standby claims it.`,
    term,
  };
}

/** A source that is down fails its check only while rows depend on it: a fallback with no coins warns. */
function sourceCheckStatus(source: SourceHealth): HealthStatus {
  if (source.state === 'up') return 'pass';
  if (source.state === 'degraded' || source.coins === 0) return 'warn';
  return 'fail';
}

/** The outputs of the checks that did not pass, as one line for `output`. */
function summary(checks: Record<string, HealthCheck[]>): string {
  return Object.entries(checks)
    .flatMap(([name, entries]) =>
      entries.filter((entry) => entry.status !== 'pass').map((e) => `${name}: ${e.output}`),
    )
    .join(' ');
}

/** One held price as a check entry: the coin, the source, the level and who prices the coin meanwhile. */
function heldCheck(held: HeldPrice): HealthCheck {
  const currency = held.currency === 'usdt' ? 'tether' : 'toman';
  const factor = Number((held.price / held.reference).toPrecision(3));
  const against = held.reason === 'own-price' ? 'its last accepted price' : "the other sources' price";
  const meanwhile =
    held.served_by !== null && held.served_by !== held.source
      ? `${held.served_by} prices ${held.symbol} meanwhile`
      : `${held.symbol} keeps its last price meanwhile (its as_of shows its age)`;
  return {
    componentId: `${held.symbol}/${held.currency}/${held.source}`,
    componentType: 'component',
    status: 'warn',
    time: held.since,
    observedValue: held.price,
    output: `${held.source}'s ${held.symbol} price in ${currency}, ${held.price}, is ${factor}× ${against} ${held.reference}: held, not published, since ${held.since}; ${meanwhile}.`,
    symbol: held.symbol,
    currency: held.currency,
    source: held.source,
    served_by: held.served_by,
  };
}
