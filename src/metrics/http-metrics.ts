import { Counter, Gauge, type Registry } from 'prom-client';
import type { Snapshot } from '../domain/rates.ts';
import type { KeyCacheCounts } from '../keys/authenticator.ts';
import type { Limiters } from '../limiter/open-limiter.ts';
import { RequestDurations } from './request-durations.ts';

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
    new Counter({
      name: 'nerkh_invalid_api_keys_total',
      help: 'Requests refused because their API key is not valid (403).',
      registers,
      collect() {
        this.reset();
        this.inc(tallies.invalidKeys);
      },
    });
    new Counter({
      name: 'nerkh_key_checks_paused_total',
      help: 'Requests refused because their client address sent too many invalid keys (failed-key throttling, 429).',
      registers,
      collect() {
        this.reset();
        this.inc(tallies.pausedKeyChecks);
      },
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
