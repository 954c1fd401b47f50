import { Counter, Gauge, type Registry } from 'prom-client';
import type { Snapshot } from '../domain/rates.ts';
import type { KeyCacheCounts } from '../keys/authenticator.ts';
import type { Limiters } from '../limiter/limiters.ts';
import { RequestDurations } from './request-durations.ts';

/** What an API process's metrics read when scraped, rather than count per request. */
export interface ApiMetricSources {
  /** The served snapshot, or null before the first commit. */
  currentSnapshot(): Snapshot | null;
  keyCache(): KeyCacheCounts;
  limiters: Pick<Limiters, 'sharedState' | 'redisErrors'>;
  /** Key requests waiting for the operator, as last read from the store; undefined before the first read. */
  pendingKeyRequests(): number | undefined;
  clock(): number;
}

/** Route label of requests no route matched (a 404, or a method not allowed): one series, not one per path sent. */
const unmatchedRoute = 'unmatched';

/**
 * The API's metrics (docs/operations.md#metrics), on the registry the composition root gives it. A request
 * costs one histogram observation (its count is the request counter) recorded by the access log
 * and one addition for the limit decision: prom-client's own `inc`/`observe` cost microseconds
 * each, so per-request figures are plain numbers the counters read when Prometheus scrapes, as
 * are the figures other parts keep anyway (key cache, Redis state, the served snapshot).
 */
export class HttpMetrics {
  readonly #requests: RequestDurations;
  /** Counted per request as plain numbers; the counters read them when scraped. */
  readonly #tallies = { admitted: 0, refused: 0, invalidKeys: 0, pausedKeyChecks: 0 };
  #sources: ApiMetricSources | null = null;

  constructor(registry: Registry) {
    const registers = [registry];
    this.#requests = new RequestDurations(registry);
    const tallies = this.#tallies;
    new Counter({
      name: 'nerkh_rate_limit_decisions_total',
      help: 'Per-key rate limit decisions on keyed requests: admitted or refused (429).',
      labelNames: ['decision'],
      registers,
      collect() {
        this.reset();
        this.inc({ decision: 'admitted' }, tallies.admitted);
        this.inc({ decision: 'refused' }, tallies.refused);
      },
    });
    counterOf(
      registry,
      'nerkh_invalid_api_keys_total',
      'Requests refused because their API key is not valid (403).',
      () => tallies.invalidKeys,
    );
    counterOf(
      registry,
      'nerkh_key_checks_paused_total',
      'Requests refused because their client address sent too many invalid keys (failed-key throttling, 429).',
      () => tallies.pausedKeyChecks,
    );
    const metrics = this;
    new Counter({
      name: 'nerkh_api_key_cache_lookups_total',
      help: 'API key checks answered from the key cache (hit) or by a store read (miss).',
      labelNames: ['result'],
      registers,
      collect() {
        const counts = metrics.#sources?.keyCache();
        if (counts === undefined) return;
        this.reset();
        this.inc({ result: 'hit' }, counts.hits);
        this.inc({ result: 'miss' }, counts.misses);
      },
    });
    new Gauge({
      name: 'nerkh_rate_limit_fallback',
      help: '1 while Redis does not answer and each instance limits on its own (with NERKH_REDIS_URL), else 0.',
      registers,
      collect() {
        const state = metrics.#sources?.limiters.sharedState?.();
        if (state !== undefined) this.set(state.shared ? 0 : 1);
      },
    });
    counterOf(
      registry,
      'nerkh_redis_errors_total',
      'Limit decisions Redis failed or did not answer in time, failed PINGs, connection errors and drops (with NERKH_REDIS_URL; else 0).',
      () => metrics.#sources?.limiters.redisErrors?.() ?? 0,
    );
    new Gauge({
      name: 'nerkh_key_requests_pending',
      help: 'Key requests from the contact page waiting for the operator (nerkh requests), as the store holds them: the same on every instance.',
      registers,
      collect() {
        const pending = metrics.#sources?.pendingKeyRequests();
        if (pending !== undefined) this.set(pending);
      },
    });
    new Gauge({
      name: 'nerkh_snapshot_age_seconds',
      help: 'Age of the snapshot this instance serves (+Inf before the first commit: no data is the stalest).',
      registers,
      collect() {
        const sources = metrics.#sources;
        if (sources === null) return;
        const snapshot = sources.currentSnapshot();
        this.set(
          snapshot === null
            ? Number.POSITIVE_INFINITY
            : Math.max(0, (sources.clock() - Date.parse(snapshot.updated_at)) / 1000),
        );
      },
    });
  }

  /** Called once by the app it measures, with the parts the scrape reads. */
  watch(sources: ApiMetricSources): void {
    this.#sources = sources;
  }

  /** One answered request; `route` is the matched route's template, undefined when none matched. */
  request(route: string | undefined, statusCode: number, seconds: number): void {
    this.#requests.observe(route ?? unmatchedRoute, statusCode, seconds);
  }

  limitDecision(admitted: boolean): void {
    if (admitted) this.#tallies.admitted++;
    else this.#tallies.refused++;
  }

  invalidKey(): void {
    this.#tallies.invalidKeys++;
  }

  keyChecksPaused(): void {
    this.#tallies.pausedKeyChecks++;
  }
}

/** A counter whose value is read from `read` when scraped: what it counts is kept as a plain number elsewhere. */
function counterOf(registry: Registry, name: string, help: string, read: () => number): void {
  new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      this.reset();
      this.inc(read());
    },
  });
}
