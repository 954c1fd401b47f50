import type { Logger } from '../logger.ts';
import type { ApiKeyRecord, ApiKeyStore } from '../store/types.ts';
import { hashApiKey, isWellFormedApiKey } from './api-key.ts';

export interface AuthenticatedKey {
  id: string;
  /** Per-key limit override, or null for the configured default. */
  rateLimit: number | null;
}

export interface KeyAuthenticatorOptions {
  store: ApiKeyStore;
  logger: Logger;
  clock?: () => number;
  /** How often the store's key version is polled; revocations take effect within one period. */
  pollMs?: number;
  /** How often batched last-use times are written. */
  flushMs?: number;
  /** Bound on cached lookups (valid and invalid keys together). */
  cacheSize?: number;
}

/**
 * Checks presented keys against the store with a bounded cache of positive and negative answers,
 * so a steady client costs one hash and one map lookup per request, and a scanner repeating a bad
 * key costs no store reads. Every process polls `apiKeysVersion()` (~1/s by default) and drops its
 * cache when any process issued or revoked a key, which is how a revocation made by the CLI reaches
 * every running instance within seconds (design §10 promises 5).
 * Last use is recorded in memory and written in one batch per `flushMs` and at close, so serving a
 * request never waits on a store write.
 */
export class KeyAuthenticator {
  readonly #store: ApiKeyStore;
  readonly #logger: Logger;
  readonly #clock: () => number;
  readonly #pollMs: number;
  readonly #flushMs: number;
  readonly #cacheSize: number;
  /** hash → record, or null for "no such key". */
  readonly #cache = new Map<string, ApiKeyRecord | null>();
  /** key id → epoch ms of the last authenticated request not yet written. */
  #pendingUse = new Map<string, number>();
  /** Bumped on every cache drop, so a lookup that raced a drop does not cache a stale answer. */
  #generation = 0;
  #version: number | null = null;
  #pollTimer: NodeJS.Timeout | undefined;
  #flushTimer: NodeJS.Timeout | undefined;

  constructor(options: KeyAuthenticatorOptions) {
    this.#store = options.store;
    this.#logger = options.logger;
    this.#clock = options.clock ?? Date.now;
    this.#pollMs = options.pollMs ?? 1000;
    this.#flushMs = options.flushMs ?? 30_000;
    this.#cacheSize = options.cacheSize ?? 10_000;
  }

  /** Reads the current version and starts polling and flushing. */
  async start(): Promise<void> {
    this.#version = await this.#store.apiKeysVersion();
    this.#pollTimer = setInterval(() => void this.pollVersion(), this.#pollMs);
    this.#pollTimer.unref();
    this.#flushTimer = setInterval(() => void this.flushLastUse(), this.#flushMs);
    this.#flushTimer.unref();
  }

  /** Stops the timers and writes pending last-use times. */
  async close(): Promise<void> {
    clearInterval(this.#pollTimer);
    clearInterval(this.#flushTimer);
    await this.flushLastUse();
  }

  /** The key's identity when it is well formed, issued, not revoked and not expired; else null. */
  async authenticate(presented: string): Promise<AuthenticatedKey | null> {
    if (!isWellFormedApiKey(presented)) return null;
    const hash = hashApiKey(presented);
    let record = this.#cache.get(hash);
    if (record === undefined) {
      const generation = this.#generation;
      record = await this.#store.findApiKeyByHash(hash);
      if (generation === this.#generation) this.#remember(hash, record);
    }
    if (record === null || record.revoked_at !== null) return null;
    const now = this.#clock();
    if (record.expires_at !== null && Date.parse(record.expires_at) <= now) return null;
    this.#pendingUse.set(record.id, now);
    return { id: record.id, rateLimit: record.rate_limit };
  }

  /** Drops the cache if another process (or this one) changed the keys since the last poll. */
  async pollVersion(): Promise<void> {
    try {
      const version = await this.#store.apiKeysVersion();
      if (version !== this.#version) {
        this.#version = version;
        this.#cache.clear();
        this.#generation++;
      }
    } catch (error) {
      this.#logger.error({ err: error }, 'polling the API key version failed; cached key answers kept');
    }
  }

  async flushLastUse(): Promise<void> {
    if (this.#pendingUse.size === 0) return;
    const batch = this.#pendingUse;
    this.#pendingUse = new Map();
    const lastUsed = new Map<string, string>();
    for (const [id, ms] of batch) lastUsed.set(id, new Date(ms).toISOString());
    try {
      await this.#store.recordApiKeyUse(lastUsed);
    } catch (error) {
      this.#logger.error({ err: error }, 'writing API key last-use times failed');
    }
  }

  #remember(hash: string, record: ApiKeyRecord | null): void {
    if (this.#cache.size >= this.#cacheSize) {
      const oldest = this.#cache.keys().next();
      if (!oldest.done) this.#cache.delete(oldest.value);
    }
    this.#cache.set(hash, record);
  }
}
