import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Snapshot } from '../domain/rates.ts';
import type { KeyCacheCounts } from '../keys/authenticator.ts';
import type { Limiters } from '../limiter/open-limiter.ts';

/** What an API process's metrics read when scraped, rather than count per request. */
export interface ApiMetricSources {
  /** The served snapshot, or null before the first commit. */
  currentSnapshot(): Snapshot | null;
  keyCache(): KeyCacheCounts;
  limiters: Pick<Limiters, 'sharedState' | 'redisErrors'>;
  clock(): number;
}

/** Route label of requests no route matched (a 404, or a method not allowed): one series, not one per path sent. */
const unmatchedRoute = 'unmatched';

/**
 * The API's metrics (README "Metrics"), on the registry the composition root gives it. A request
 * costs one histogram observation (its count is the request counter) recorded by the access log,
 * plus one counter step for the limit decision; every other figure is read from the parts that
 * keep it anyway when Prometheus scrapes.
 */
export class HttpMetrics {
  readonly #requests: Histogram<'route' | 'status_code'>;
  readonly #decisions: Counter<'decision'>;
  readonly #invalidKeys: Counter;
  readonly #pausedKeyChecks: Counter;
  #sources: ApiMetricSources | null = null;

  constructor(registry: Registry) {
    const registers = [registry];
    this.#requests = new Histogram({
      name: 'nerkh_http_request_duration_seconds',
      help: 'Time to answer a request, by route template and status code (the _count is the request counter).',
      labelNames: ['route', 'status_code'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    });
    this.#decisions = new Counter({
      name: 'nerkh_rate_limit_decisions_total',
      help: 'Per-key rate limit decisions on keyed requests: admitted or refused (429).',
      labelNames: ['decision'],
      registers,
    });
    this.#invalidKeys = new Counter({
      name: 'nerkh_invalid_api_keys_total',
      help: 'Requests refused because their API key is not valid (403).',
      registers,
    });
    this.#pausedKeyChecks = new Counter({
      name: 'nerkh_key_checks_paused_total',
      help: 'Requests refused because their client address sent too many invalid keys (failed-key throttling, 429).',
      registers,
    });
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
    new Counter({
      name: 'nerkh_redis_errors_total',
      help: 'Failed Redis commands, connection errors and dropped connections (with NERKH_REDIS_URL; else 0).',
      registers,
      collect() {
        const errors = metrics.#sources?.limiters.redisErrors?.();
        if (errors === undefined) return;
        this.reset();
        this.inc(errors);
      },
    });
    new Gauge({
      name: 'nerkh_snapshot_age_seconds',
      help: 'Age of the snapshot this instance serves (absent before the first commit).',
      registers,
      collect() {
        const sources = metrics.#sources;
        const snapshot = sources?.currentSnapshot();
        if (sources == null || snapshot == null) return;
        this.set(Math.max(0, (sources.clock() - Date.parse(snapshot.updated_at)) / 1000));
      },
    });
  }

  /** Called once by the app it measures, with the parts the scrape reads. */
  watch(sources: ApiMetricSources): void {
    this.#sources = sources;
  }

  /** One answered request; `route` is the matched route's template, undefined when none matched. */
  request(route: string | undefined, statusCode: number, seconds: number): void {
    this.#requests.observe({ route: route ?? unmatchedRoute, status_code: statusCode }, seconds);
  }

  limitDecision(admitted: boolean): void {
    this.#decisions.inc(admitted ? admittedLabels : refusedLabels);
  }

  invalidKey(): void {
    this.#invalidKeys.inc();
  }

  keyChecksPaused(): void {
    this.#pausedKeyChecks.inc();
  }
}

const admittedLabels = { decision: 'admitted' } as const;
const refusedLabels = { decision: 'refused' } as const;
