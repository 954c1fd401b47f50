import type { MaybePromise } from '../limiter/types.ts';
import type { Logger } from '../logger.ts';
import type { ApiKeyRecord } from '../store/api-key-record.ts';
import type { ApiKeyStore } from '../store/types.ts';
import { apiKeyDigest, apiKeyLength, hashOfDigest, isWellFormedApiKey } from './api-key.ts';
import { KeyUse, LastUseWriter } from './key-use-writer.ts';

export interface AuthenticatedKey {
  readonly id: string;
  /** Per-key limit override, or null for the configured default. */
  readonly rateLimit: number | null;
  /**
   * Counts the key's rate-limit decision on a request, taken at `nowMs`, for its usage per day
   * (docs/operations.md#usage-per-key): an increment in memory, written with the last use.
   */
  counted(allowed: boolean, nowMs: number): void;
}

/**
 * What the cache keeps of a valid key, and hands out as its identity: one small object per key,
 * since a busy service caches every key in use. It also holds the key's last use and counts not
 * yet written (`KeyUse`).
 */
class ValidKey extends KeyUse implements AuthenticatedKey {
  /** Epoch ms, or null for a key that lasts until revoked. */
  readonly #expiresAtMs: number | null;

  constructor(
    id: string,
    readonly rateLimit: number | null,
    expiresAtMs: number | null,
  ) {
    super(id);
    this.#expiresAtMs = expiresAtMs;
  }

  /** Records a request at `nowMs`, or returns false when the key has expired by then. */
  use(nowMs: number): boolean {
    if (this.#expiresAtMs !== null && nowMs >= this.#expiresAtMs) return false;
    this.used(nowMs);
    return true;
  }
}

/** What the caches answer for a presented string that cannot be a key (wrong length or checksum). */
const notAKey = Symbol('not a key');

/** A well-formed key the caches hold no answer for: the store is asked by its digest. */
interface StoreReadNeeded {
  readonly digest: string;
}

/** Key checks answered by the caches (valid or invalid) and by a store read, since start. */
export interface KeyCacheCounts {
  hits: number;
  misses: number;
}

interface KeyAuthenticatorOptions {
  store: ApiKeyStore;
  logger: Logger;
  clock?: () => number;
  /** How often the store's key version is polled; revocations take effect within one period. */
  pollMs?: number;
  /** How long a key as presented is remembered after its last use: between one and two of these. */
  presentedMs?: number;
  /**
   * How long the read of a key seen before may take before the key is honoured from memory
   * (default 1 s): a store that hangs instead of failing (a network cut without a reset) would
   * otherwise hold the request for the store's own timeout, 15 s.
   */
  seenBeforeWaitMs?: number;
  /** How often batched last-use times are written. */
  flushMs?: number;
  /** Keys per last-use transaction (default 500; docs/decisions/0037-background-work-in-small-steps.md). */
  flushChunk?: number;
  /** Bound on cached valid keys; set it above the number of keys in use, so none is ever evicted. */
  validCacheSize?: number;
  /** Bound on cached unknown keys: they come from clients, so they get their own, smaller room. */
  invalidCacheSize?: number;
}

/** Keys as presented are remembered for 10 to 20 s after their last use (see `#recent`). */
const defaultPresentedMs = 10_000;

/**
 * Checks presented keys against the store with bounded caches of positive and negative answers,
 * so a steady client costs one map lookup per request (and one hash when it calls less than once
 * every 10 s; answered synchronously either way), and a
 * scanner repeating a bad key costs no store reads. The two caches are separate so a client
 * sending endless made-up keys can only evict other made-up keys, never the valid ones.
 * Every process polls `apiKeysVersion()` (~1/s by default) and drops its caches when any process
 * issued or revoked a key, which is how a revocation made by the CLI reaches
 * every running instance within seconds (docs/architecture.md#promises-to-operators: within 5 s).
 *
 * A dropped valid key is not forgotten: it is remembered as seen before (`#seenBefore`), asked of
 * the store again at its next use, and honoured from memory when the store does not answer. So a
 * PostgreSQL outage costs no request for a key this process has authenticated, even one not used
 * since the last key change; only keys it never saw get 503 until the store answers
 * (docs/operations.md#store-outages). Keys honoured so are read again once the store answers, so
 * a revocation made during the outage takes effect then.
 * Last use is recorded in memory and written in batches by ./key-use-writer.ts, so serving a
 * request never waits on a store write.
 */
export class KeyAuthenticator {
  readonly #store: ApiKeyStore;
  readonly #logger: Logger;
  readonly #clock: () => number;
  readonly #pollMs: number;
  readonly #presentedMs: number;
  readonly #seenBeforeWaitMs: number;
  readonly #lastUse: LastUseWriter;
  readonly #validCacheSize: number;
  readonly #invalidCacheSize: number;
  /** Key digest → a valid key (insertion order is eviction order). */
  readonly #valid = new Map<string, ValidKey>();
  /** Digests of well-formed keys the store does not hold (or holds revoked). */
  readonly #invalid = new Set<string>();
  /**
   * Key digest → a key the store last said was valid, which left `#valid` (a cache drop or the
   * bound) and has not been read again since: honoured from memory only while the store does not
   * answer. Bounded like `#valid`, the oldest forgotten first.
   */
  readonly #seenBefore = new Map<string, ValidKey>();
  /** The last key-store call (version poll or key read) failed, and none has succeeded since. */
  #storeFailing = false;
  /**
   * Keys were honoured from memory while the store did not answer: the next version the store
   * answers drops the caches, changed or not, so each is read again (a revocation made meanwhile).
   */
  #recheck = false;
  /**
   * Valid keys as presented → their identity, for keys presented in this period of `presentedMs`
   * and the one before: a client calling again within 10 s costs one map lookup instead of a
   * SHA-256 and a lookup. Kept two periods at most (swapped every period), so a plain key leaves
   * memory within 20 s of its last use, and dropped with the other caches, so a revocation takes
   * effect as fast as without it.
   */
  #recent = new Map<string, ValidKey>();
  #previous = new Map<string, ValidKey>();
  /** Bumped on every cache drop, so a lookup that raced a drop does not cache a stale answer. */
  #generation = 0;
  #version: number | null = null;
  readonly #counts: KeyCacheCounts = { hits: 0, misses: 0 };
  #pollTimer: NodeJS.Timeout | undefined;
  #presentedTimer: NodeJS.Timeout | undefined;

  constructor(options: KeyAuthenticatorOptions) {
    this.#store = options.store;
    this.#logger = options.logger;
    this.#clock = options.clock ?? Date.now;
    this.#pollMs = options.pollMs ?? 1000;
    this.#presentedMs = options.presentedMs ?? defaultPresentedMs;
    this.#seenBeforeWaitMs = options.seenBeforeWaitMs ?? 1000;
    this.#lastUse = new LastUseWriter({
      store: options.store,
      logger: options.logger,
      // The cached valid keys hold their own last use; keys leaving the caches hand theirs over.
      liveKeys: () => this.#valid.values(),
      ...(options.flushMs === undefined ? {} : { flushMs: options.flushMs }),
      ...(options.flushChunk === undefined ? {} : { flushChunk: options.flushChunk }),
    });
    this.#validCacheSize = options.validCacheSize ?? 20_000;
    this.#invalidCacheSize = options.invalidCacheSize ?? 10_000;
  }

  /** Reads the current version and starts polling and flushing. */
  async start(): Promise<void> {
    this.#version = await this.#store.apiKeysVersion();
    this.#pollTimer = setInterval(() => void this.pollVersion(), this.#pollMs);
    this.#pollTimer.unref();
    this.#presentedTimer = setInterval(() => this.forgetIdlePresented(), this.#presentedMs);
    this.#presentedTimer.unref();
    this.#lastUse.start();
  }

  /** Stops the timers and writes pending last-use times. */
  async close(): Promise<void> {
    clearInterval(this.#pollTimer);
    clearInterval(this.#presentedTimer);
    await this.#lastUse.close();
  }

  /**
   * The key's identity when it is well formed, issued, not revoked and not expired; else null.
   * No comparison here touches an issued key: the presented key's SHA-256 is looked up (a Map
   * here, a unique index in the store), so the time taken depends only on the hash of what was
   * sent and reveals nothing about any key; a constant-time compare would protect nothing more.
   * Answered synchronously from the caches; only a key not seen since the last cache drop waits
   * for the store.
   */
  authenticate(presented: string): MaybePromise<AuthenticatedKey | null> {
    const cached = this.#fromCaches(presented);
    if (cached === notAKey) return null;
    if (cached instanceof ValidKey) {
      this.#counts.hits++;
      return this.#admit(cached, this.#clock());
    }
    if (cached === null) {
      this.#counts.hits++;
      return null;
    }
    this.#counts.misses++;
    return this.#lookUp(presented, cached.digest);
  }

  /**
   * The identity of a key the caches know as valid (and not expired), or undefined when they
   * hold no such answer and only `authenticate` can tell: what the rates fast path
   * (../http/rates/fast-path.ts) asks, handing every other key to the route that authenticates.
   * Not counted as a cache hit: the fast path counts one (`countCacheHit`) once it answers the
   * request itself, so a request it hands on to the route is counted once, there.
   */
  cachedValid(presented: string, nowMs: number): AuthenticatedKey | undefined {
    const cached = this.#fromCaches(presented);
    if (!(cached instanceof ValidKey)) return undefined;
    return this.#admit(cached, nowMs) ?? undefined;
  }

  /** Counts a key check answered from the caches outside `authenticate` (see `cachedValid`). */
  countCacheHit(): void {
    this.#counts.hits++;
  }

  /**
   * What the caches say of `presented`: a valid key, null for a key they know is not valid,
   * `notAKey` for a string no store could hold (answered without counting it as a cache hit), or
   * the key's digest when only the store can tell (so the store read does not hash it again).
   */
  #fromCaches(presented: string): ValidKey | null | typeof notAKey | StoreReadNeeded {
    const recent = this.#recent.get(presented);
    if (recent !== undefined) return recent;
    if (presented.length !== apiKeyLength) return notAKey;
    const previous = this.#previous.get(presented);
    if (previous !== undefined) return this.#remember(presented, previous);
    const digest = apiKeyDigest(presented);
    const valid = this.#valid.get(digest);
    if (valid !== undefined) return this.#remember(presented, valid);
    if (this.#invalid.has(digest)) return null;
    if (this.#storeFailing) {
      // No store read while the store is known not to answer: under a stalled connection each
      // would wait out its timeout before failing.
      const seen = this.#honourSeenBefore(digest);
      if (seen !== undefined) return this.#remember(presented, seen);
    }
    // The checksum refuses mistyped or invented keys without a store read (and without caching them).
    return isWellFormedApiKey(presented) ? { digest } : notAKey;
  }

  /** Cache hits and misses so far, for the metrics. */
  cacheCounts(): KeyCacheCounts {
    return { ...this.#counts };
  }

  async #lookUp(presented: string, digest: string): Promise<AuthenticatedKey | null> {
    const generation = this.#generation;
    let record: ApiKeyRecord | null;
    try {
      record = await this.#readKey(digest);
    } catch (error) {
      this.#failing(error);
      const seen = this.#honourSeenBefore(digest);
      if (seen === undefined) throw error;
      this.#remember(presented, seen);
      return this.#admit(seen, this.#clock());
    }
    this.#answering();
    this.#seenBefore.delete(digest);
    const valid = validKeyOf(record);
    // A drop that raced this read may have been the revocation of this very key: answer, don't cache.
    const cached = generation === this.#generation;
    if (cached) {
      this.#cache(digest, valid);
      if (valid !== null) this.#remember(presented, valid);
    }
    if (valid === null) return null;
    const admitted = this.#admit(valid, this.#clock());
    if (!cached) {
      // A key left out of the caches keeps its use here, or the flush would never see it.
      this.#lastUse.keep([valid]);
      // Seen all the same: the first use of a key just issued races the drop its own issue
      // causes, and an outage right after must not make it a key never seen. Honoured from there
      // only while the store does not answer, and read again once it does.
      this.#rememberSeen(digest, valid);
    }
    return admitted;
  }

  /**
   * The store's record of the key; for a key seen before, a read that takes longer than
   * `seenBeforeWaitMs` fails (and the key is honoured from memory), its late answer ignored.
   */
  async #readKey(digest: string): Promise<ApiKeyRecord | null> {
    const read = this.#store.findApiKeyByHash(hashOfDigest(digest));
    if (!this.#seenBefore.has(digest)) return read;
    let timer: NodeJS.Timeout | undefined;
    const slow = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`the key store did not answer within ${this.#seenBeforeWaitMs} ms`)),
        this.#seenBeforeWaitMs,
      );
    });
    read.catch(() => {});
    try {
      return await Promise.race([read, slow]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Keeps `presented` in this period's map, up to the size of the valid-key cache. */
  #remember(presented: string, valid: ValidKey): ValidKey {
    if (this.#recent.size < this.#validCacheSize) this.#recent.set(presented, valid);
    return valid;
  }

  #admit(valid: ValidKey, nowMs: number): AuthenticatedKey | null {
    return valid.use(nowMs) ? valid : null;
  }

  /**
   * Drops the caches if another process (or this one) changed the keys since the last poll, or if
   * keys were honoured from memory while the store did not answer.
   */
  async pollVersion(): Promise<void> {
    let version: number;
    try {
      version = await this.#store.apiKeysVersion();
    } catch (error) {
      this.#failing(error);
      return;
    }
    this.#answering();
    if (version === this.#version && !this.#recheck) return;
    this.#version = version;
    this.#recheck = false;
    this.#lastUse.keep(this.#valid.values());
    for (const [digest, valid] of this.#valid) this.#rememberSeen(digest, valid);
    this.#valid.clear();
    this.#invalid.clear();
    this.#recent.clear();
    this.#previous.clear();
    this.#generation++;
  }

  /**
   * A key seen before, now honoured from memory because the store does not answer, and cached
   * again until the store answers (`#recheck`); undefined for a key never seen.
   */
  #honourSeenBefore(digest: string): ValidKey | undefined {
    const seen = this.#seenBefore.get(digest);
    if (seen === undefined) return undefined;
    this.#seenBefore.delete(digest);
    this.#recheck = true;
    this.#cache(digest, seen);
    return seen;
  }

  /** Keeps a key that leaves `#valid` as seen before, up to the bound of `#valid`. */
  #rememberSeen(digest: string, valid: ValidKey): void {
    this.#seenBefore.delete(digest);
    if (this.#seenBefore.size >= this.#validCacheSize)
      this.#seenBefore.delete(this.#seenBefore.keys().next().value as string);
    this.#seenBefore.set(digest, valid);
  }

  /** A key-store call failed: logged once until the store answers again, not once a second. */
  #failing(error: unknown): void {
    if (this.#storeFailing) return;
    this.#storeFailing = true;
    this.#logger.warn(
      { err: error },
      'the key store does not answer; keys seen before are honoured from memory, keys never seen get 503 until it answers',
    );
  }

  #answering(): void {
    if (!this.#storeFailing) return;
    this.#storeFailing = false;
    this.#logger.info('the key store answers again; keys honoured from memory meanwhile are checked again');
  }

  /** Starts a new period of keys as presented: those not presented during the last one are forgotten. */
  forgetIdlePresented(): void {
    this.#previous = this.#recent;
    this.#recent = new Map();
  }

  /** Writes the pending last-use times now (./key-use-writer.ts). */
  flushLastUse(): Promise<void> {
    return this.#lastUse.flush();
  }

  #cache(digest: string, valid: ValidKey | null): void {
    if (valid === null) {
      if (this.#invalid.size >= this.#invalidCacheSize)
        this.#invalid.delete(this.#invalid.values().next().value as string);
      this.#invalid.add(digest);
    } else {
      if (this.#valid.size >= this.#validCacheSize) {
        const [oldest, evicted] = this.#valid.entries().next().value as [string, ValidKey];
        this.#lastUse.keep([evicted]);
        this.#valid.delete(oldest);
        this.#rememberSeen(oldest, evicted);
        // The evicted key may be among the recent ones, which cannot tell which it is: the bound
        // holds for them too.
        this.#recent.clear();
        this.#previous.clear();
      }
      this.#valid.set(digest, valid);
    }
  }
}

function validKeyOf(record: ApiKeyRecord | null): ValidKey | null {
  if (record === null || record.revoked_at !== null) return null;
  return new ValidKey(
    record.id,
    record.rate_limit,
    record.expires_at === null ? null : Date.parse(record.expires_at),
  );
}
