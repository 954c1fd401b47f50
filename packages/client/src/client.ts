import { apiBaseUrl } from './base-url.ts';
import type { HealthResponse, Problem, RatesResponse } from './contract.ts';
import { NerkhBudgetError, NerkhProblemError, NerkhRequestError } from './errors.ts';
import { parseRateLimitFields, type RateLimitInfo } from './rate-limit-fields.ts';
import { type BudgetOptions, RequestBudget } from './request-budget.ts';

export interface RetryOptions {
  /** Retries after a 429 (or a local budget refusal) per call. */
  attempts: number;
  /** Longest `Retry-After` worth waiting for, in seconds; a longer one is thrown at once. Default 60. */
  maxWaitSeconds?: number;
}

export interface NerkhClientOptions {
  /** The service's address: `https://rates.example` or `https://rates.example/v1`. */
  baseUrl: string;
  /** The key for `/v1/rates`; sent only in `X-API-Key`. `/v1/health` needs none. */
  apiKey?: string;
  /** Per-attempt timeout in milliseconds (default 10,000). */
  timeoutMs?: number;
  /** Bounded retry on 429, honouring `Retry-After`. Off by default; 401 and 403 are never retried. */
  retry?: RetryOptions | false;
  /** The client-side budget (on by default); `false` sends every request and lets the service refuse. */
  budget?: BudgetOptions | false;
  /** Reuse answers: within `Cache-Control: max-age` without a request, then with `If-None-Match`. Default true. */
  cache?: boolean;
  /** The platform's fetch by default. */
  fetch?: typeof fetch;
  /** Epoch milliseconds; tests inject a fake clock. */
  clock?: () => number;
  /** How the client waits before a retry; tests inject one that advances their fake clock. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface CallOptions {
  signal?: AbortSignal;
}

export interface NerkhResult<T> {
  data: T;
  /** HTTP status of the answer the data came from (200; `/v1/health` also 503). */
  status: number;
  /** `network`: a new body; `revalidated`: a 304 reused the cached body; `cache`: within max-age, no request. */
  source: 'network' | 'revalidated' | 'cache';
  /** The RateLimit fields of the answer (keyed requests), or null. */
  rateLimit: RateLimitInfo | null;
}

interface CacheEntry {
  etag: string | null;
  freshUntilMs: number;
  status: number;
  body: unknown;
  rateLimit: RateLimitInfo | null;
}

const problemType = 'application/problem+json';

function waitFor(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** `max-age` of a Cache-Control field in seconds; 0 for no-store, no-cache or none. */
function maxAgeSeconds(field: string | null): number {
  if (field === null || /(^|,)\s*(no-store|no-cache)\s*(,|$)/i.test(field)) return 0;
  const match = /(?:^|,)\s*max-age\s*=\s*"?(\d+)"?/i.exec(field);
  return match ? Number(match[1]) : 0;
}

function retryAfterSeconds(field: string | null, nowMs: number): number | null {
  if (field === null) return null;
  if (/^\d+$/.test(field.trim())) return Number(field.trim());
  const date = Date.parse(field);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - nowMs) / 1000));
}

/**
 * A client of the nerkh rates API (README.md of this package). It uses only the public API and the
 * platform's fetch, so it runs in Node ≥ 20, browsers, Deno and Bun.
 */
export class NerkhClient {
  readonly #base: string;
  readonly #apiKey: string | undefined;
  readonly #timeoutMs: number;
  readonly #retry: Required<RetryOptions> | null;
  readonly #budget: RequestBudget | null;
  readonly #cache: Map<string, CacheEntry> | null;
  readonly #fetch: typeof fetch;
  readonly #clock: () => number;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  #rateLimit: RateLimitInfo | null = null;

  constructor(options: NerkhClientOptions) {
    this.#base = apiBaseUrl(options.baseUrl, options.apiKey);
    this.#apiKey = options.apiKey;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#retry = options.retry
      ? {
          attempts: Math.max(0, Math.floor(options.retry.attempts)),
          maxWaitSeconds: options.retry.maxWaitSeconds ?? 60,
        }
      : null;
    this.#budget = options.budget === false ? null : new RequestBudget(options.budget);
    this.#cache = options.cache === false ? null : new Map();
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.#clock = options.clock ?? Date.now;
    this.#sleep = options.sleep ?? waitFor;
  }

  /** The RateLimit and RateLimit-Policy fields of the last keyed answer, parsed. */
  get rateLimit(): RateLimitInfo | null {
    return this.#rateLimit;
  }

  /**
   * Sell rates of every listed currency, of one (`symbol`), or of several (`symbols`, at most 20
   * distinct, one request against the quota; rows sorted by symbol). Case-insensitive.
   */
  getRates(
    options: CallOptions & { symbol?: string; symbols?: readonly string[] } = {},
  ): Promise<NerkhResult<RatesResponse>> {
    const { symbol, symbols } = options;
    if (symbol !== undefined && symbols !== undefined) {
      return Promise.reject(new TypeError('give symbol or symbols, not both'));
    }
    if (symbols !== undefined && symbols.length === 0) {
      return Promise.reject(new TypeError('symbols needs at least one symbol; omit it for every currency'));
    }
    // Commas separate the items, and the service decodes %2C before it splits: an item holding a
    // comma would silently become two. Any other malformed item is the service's 400 to name.
    if (symbols?.some((item) => item.includes(','))) {
      return Promise.reject(new TypeError('a symbol cannot hold a comma; give each symbol as an item'));
    }
    const query =
      symbols !== undefined
        ? `?symbols=${symbols.map((item) => encodeURIComponent(item)).join(',')}`
        : symbol !== undefined
          ? `?symbol=${encodeURIComponent(symbol)}`
          : '';
    return this.#call<RatesResponse>(`/rates${query}`, true, options.signal);
  }

  /** Freshness of the data and state of the sources; a failing service (503) is a result, not an error. */
  getHealth(options: CallOptions = {}): Promise<NerkhResult<HealthResponse>> {
    return this.#call<HealthResponse>('/health', false, options.signal);
  }

  async #call<T>(path: string, keyed: boolean, signal?: AbortSignal): Promise<NerkhResult<T>> {
    if (keyed && !this.#apiKey) {
      throw new TypeError(
        'apiKey is required for /v1/rates; request a key through the service’s contact page',
      );
    }
    let retriesLeft = this.#retry?.attempts ?? 0;
    for (;;) {
      signal?.throwIfAborted();
      const cached = this.#cache?.get(path);
      if (cached && this.#clock() < cached.freshUntilMs) {
        return {
          data: cached.body as T,
          status: cached.status,
          source: 'cache',
          rateLimit: cached.rateLimit,
        };
      }
      const budgetWait = keyed ? (this.#budget?.waitSeconds(this.#clock()) ?? 0) : 0;
      if (budgetWait > 0) {
        if (!this.#mayRetry(retriesLeft, budgetWait)) throw new NerkhBudgetError(budgetWait);
        retriesLeft -= 1;
        await this.#sleep(budgetWait * 1000, signal);
        continue;
      }
      try {
        return await this.#send<T>(path, keyed, cached, signal);
      } catch (error) {
        if (!(error instanceof NerkhProblemError) || error.status !== 429) throw error;
        const wait = error.retryAfter ?? 1;
        if (!this.#mayRetry(retriesLeft, wait)) throw error;
        retriesLeft -= 1;
        await this.#sleep(wait * 1000, signal);
      }
    }
  }

  #mayRetry(retriesLeft: number, waitSeconds: number): boolean {
    return this.#retry !== null && retriesLeft > 0 && waitSeconds <= this.#retry.maxWaitSeconds;
  }

  async #send<T>(
    path: string,
    keyed: boolean,
    cached: CacheEntry | undefined,
    signal?: AbortSignal,
  ): Promise<NerkhResult<T>> {
    const headers = new Headers();
    if (keyed && this.#apiKey) headers.set('X-API-Key', this.#apiKey);
    if (cached?.etag) headers.set('If-None-Match', cached.etag);
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    let response: Response;
    try {
      response = await this.#fetch(`${this.#base}${path}`, {
        headers,
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (timeout.aborted) {
        throw new NerkhRequestError(
          'timeout',
          `no answer from ${this.#base}${path} within ${this.#timeoutMs} ms`,
        );
      }
      throw new NerkhRequestError('network', `request to ${this.#base}${path} failed`, null, {
        cause: error,
      });
    }
    const nowMs = this.#clock();
    const rateLimit = parseRateLimitFields(response.headers);
    if (keyed) {
      if (rateLimit) this.#rateLimit = rateLimit;
      if (response.status === 429) {
        this.#budget?.recordRefused(
          rateLimit,
          retryAfterSeconds(response.headers.get('retry-after'), nowMs),
          nowMs,
        );
      } else if (rateLimit) {
        this.#budget?.recordCounted(rateLimit, nowMs);
      }
    }
    const freshUntilMs = nowMs + maxAgeSeconds(response.headers.get('cache-control')) * 1000;
    if (response.status === 304 && cached) {
      const entry = { ...cached, freshUntilMs, rateLimit };
      this.#cache?.set(path, entry);
      return { data: cached.body as T, status: cached.status, source: 'revalidated', rateLimit };
    }
    const contentType = response.headers.get('content-type') ?? '';
    const body = await this.#readJson(response, path);
    if (
      contentType.startsWith(problemType) ||
      (!response.ok && !(response.status === 503 && path === '/health'))
    ) {
      throw this.#problemError(response, body, nowMs);
    }
    const etag = response.headers.get('etag');
    if (this.#cache && (etag !== null || freshUntilMs > nowMs)) {
      this.#cache.set(path, { etag, freshUntilMs, status: response.status, body, rateLimit });
    }
    return { data: body as T, status: response.status, source: 'network', rateLimit };
  }

  async #readJson(response: Response, path: string): Promise<unknown> {
    const text = await response.text();
    try {
      return JSON.parse(text);
    } catch {
      throw new NerkhRequestError(
        'unexpected-response',
        `${this.#base}${path} answered ${response.status} without a JSON body`,
        response.status,
      );
    }
  }

  #problemError(response: Response, body: unknown, nowMs: number): Error {
    const looksLikeProblem =
      typeof body === 'object' && body !== null && typeof (body as Problem).code === 'string';
    if (!looksLikeProblem) {
      return new NerkhRequestError(
        'unexpected-response',
        `${this.#base} answered ${response.status} without a problem document`,
        response.status,
      );
    }
    const retryAfter = retryAfterSeconds(response.headers.get('retry-after'), nowMs);
    return new NerkhProblemError(body as Problem, response.status, retryAfter);
  }
}
