import type { Redis } from 'ioredis';
import type { Logger } from '../logger.ts';
import type { MemoryRateLimiter } from './memory-limiter.ts';
import { CommandTimeoutError } from './redis/connection.ts';
import type { RedisRateLimiter } from './redis-limiter.ts';
import type { MaybePromise, RateLimitDecision, RateLimiter } from './types.ts';

/** Whether limits are shared through Redis right now; what /v1/health reports. */
export interface SharedLimitState {
  /** True while decisions come from Redis; false while each instance limits on its own. */
  shared: boolean;
  /** When the current state began (ISO 8601). */
  since: string;
  /** Why limits are not shared (the error Redis gave, or its silence), or null while they are. */
  reason: string | null;
}

interface FallbackSwitchOptions {
  redis: Redis;
  logger: Logger;
  windowMs: number;
  /** Pause between two PINGs while Redis is unreachable. */
  probeMs?: number;
  /**
   * How long Redis may go without answering anything after a command timed out before the
   * limits go local: a lone slow answer costs only the decisions that waited for it.
   */
  stallMs?: number;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Where the limiters of one process take their decisions: from Redis while it answers, from
 * their in-memory limiters while it does not. A connection that closes or is refused, or a
 * command that fails with an error, switches every limiter of the connection to memory at once,
 * logged once with the reason; a PING each `probeMs` notices Redis answering again (ioredis
 * reconnects on its own) and switches back, logged once too.
 *
 * A command that timed out does not switch by itself: one slow answer (a loaded machine, a
 * slow command of another client) once sent a whole instance local for a second and more, and a
 * burst spread over several instances was then admitted several times over. Its decision is
 * taken from memory, a PING goes out, and the switch comes only if Redis then answers nothing,
 * neither a decision nor the PING, for `stallMs`: about the timeout plus `stallMs` after Redis
 * stopped answering.
 */
export class FallbackSwitch {
  readonly #redis: Redis;
  readonly #logger: Logger;
  readonly #windowMs: number;
  readonly #probeMs: number;
  #shared = true;
  #sinceMs: number;
  #reason: string | null = null;
  #settling = false;
  #probeTimer: NodeJS.Timeout | null = null;
  #settleTimer: NodeJS.Timeout | null = null;
  #closed = false;
  #errors = 0;
  readonly #stallMs: number;
  /** When the first of the timeouts not yet followed by an answer happened, or null. */
  #stallSinceMs: number | null = null;
  #stallTimer: NodeJS.Timeout | null = null;
  readonly #onError = (error: unknown) => this.lost(error);
  readonly #onClose = () => this.lost('the connection closed');

  constructor(options: FallbackSwitchOptions) {
    this.#redis = options.redis;
    this.#logger = options.logger;
    this.#windowMs = options.windowMs;
    this.#probeMs = options.probeMs ?? 1000;
    this.#stallMs = options.stallMs ?? 1000;
    this.#sinceMs = Date.now();
    // Without a listener ioredis prints every failed reconnection attempt to stderr.
    this.#redis.on('error', this.#onError);
    this.#redis.on('close', this.#onClose);
  }

  /** True while decisions come from Redis. */
  get shared(): boolean {
    return this.#shared;
  }

  /**
   * True during the window after Redis came back: Redis has not seen what each instance admitted
   * on its own, so for that long an instance admits only what its own record allows too.
   */
  get settling(): boolean {
    return this.#settling;
  }

  state(): SharedLimitState {
    return { shared: this.#shared, since: new Date(this.#sinceMs).toISOString(), reason: this.#reason };
  }

  /** Connects to Redis; if it does not answer, limits start local and the probe takes over. */
  async start(): Promise<void> {
    try {
      await this.#redis.connect();
    } catch (error) {
      this.lost(error);
    }
  }

  /**
   * Failed decisions (each of a failed batch), failed PINGs, connection errors and drops since
   * start (the metrics count them).
   */
  get errors(): number {
    return this.#errors;
  }

  /**
   * A command failed or the connection dropped: decide from memory until Redis answers a PING.
   * A timeout switches only once Redis has answered nothing for `stallMs` after it.
   */
  lost(error: unknown): void {
    if (this.#closed) return;
    this.#errors++;
    if (!this.#shared) return;
    if (error instanceof CommandTimeoutError) this.#timedOut(error);
    else this.#switchToMemory(error);
  }

  /** Redis answered a command: whatever timed out before was slow, not gone. */
  answered(): void {
    if (this.#stallSinceMs !== null) this.#endStall();
  }

  #timedOut(error: CommandTimeoutError): void {
    const nowMs = Date.now();
    if (this.#stallSinceMs === null) {
      this.#stallSinceMs = nowMs;
      this.#stallTimer = setTimeout(() => {
        this.#stallTimer = null;
        this.#stalled(error);
      }, this.#stallMs);
      this.#stallTimer.unref();
      // Answered even when no request follows; a PING that times out too changes nothing here.
      this.#redis.ping().then(
        () => this.answered(),
        (pingError: unknown) => this.lost(pingError),
      );
    } else if (nowMs - this.#stallSinceMs >= this.#stallMs) {
      this.#stalled(error);
    }
  }

  #stalled(error: CommandTimeoutError): void {
    if (this.#stallSinceMs === null || !this.#shared) return;
    this.#switchToMemory(`${error.message}, and nothing answered in the ${this.#stallMs} ms after`);
  }

  #endStall(): void {
    this.#stallSinceMs = null;
    if (this.#stallTimer !== null) clearTimeout(this.#stallTimer);
    this.#stallTimer = null;
  }

  #switchToMemory(error: unknown): void {
    this.#endStall();
    this.#shared = false;
    this.#settling = false;
    if (this.#settleTimer !== null) clearTimeout(this.#settleTimer);
    this.#sinceMs = Date.now();
    this.#reason = `Redis does not answer (${messageOf(error)}); each instance limits on its own`;
    this.#logger.warn(
      { reason: this.#reason },
      'rate limits: Redis unreachable, each API instance now limits requests on its own',
    );
    this.#scheduleProbe();
  }

  close(): void {
    this.#closed = true;
    this.#redis.off('error', this.#onError);
    this.#redis.off('close', this.#onClose);
    if (this.#probeTimer !== null) clearTimeout(this.#probeTimer);
    if (this.#settleTimer !== null) clearTimeout(this.#settleTimer);
    this.#endStall();
  }

  #scheduleProbe(): void {
    this.#probeTimer = setTimeout(() => {
      this.#probeTimer = null;
      this.#redis.ping().then(
        () => this.#back(),
        () => {
          if (!this.#closed) this.#scheduleProbe();
        },
      );
    }, this.#probeMs);
    this.#probeTimer.unref();
  }

  #back(): void {
    if (this.#closed) return;
    const downMs = Date.now() - this.#sinceMs;
    this.#shared = true;
    this.#sinceMs = Date.now();
    this.#reason = null;
    this.#settling = true;
    this.#settleTimer = setTimeout(() => {
      this.#settleTimer = null;
      this.#settling = false;
    }, this.#windowMs);
    this.#settleTimer.unref();
    this.#logger.info({ downMs }, 'rate limits: Redis answers again, limits are shared across instances');
  }
}

/**
 * A limiter that never fails a request because of Redis: decisions come from the shared
 * (Redis) limiter while the switch says it answers, and from this process's in-memory limiter
 * while it does not, without an error or a wait beyond one command timeout.
 *
 * The in-memory limiter records every admission Redis grants through this instance, so when
 * Redis goes away it already knows what this instance admitted in the last window. From then on
 * each of N instances admits up to `limit` per window on its own: a key that spreads its
 * requests over every instance gets up to N × limit per window until Redis answers again. For
 * one window after that, an instance admits only what both Redis and its own record allow, so
 * the window that straddles Redis's return does not add a fresh `limit` from Redis on top.
 * An operator bounds the outage figure with fewer API instances, a lower per-key limit, or a
 * load balancer that sends each key to one instance (sticky by the X-API-Key header), which
 * keeps each key's limit exact through the outage.
 */
export class FallbackRateLimiter implements RateLimiter {
  readonly #shared: RedisRateLimiter;
  readonly #local: MemoryRateLimiter;
  readonly #switch: FallbackSwitch;

  constructor(shared: RedisRateLimiter, local: MemoryRateLimiter, fallbackSwitch: FallbackSwitch) {
    this.#shared = shared;
    this.#local = local;
    this.#switch = fallbackSwitch;
  }

  take(key: string, limit: number, nowMs: number): MaybePromise<RateLimitDecision> {
    return this.#decide(key, limit, nowMs, true);
  }

  peek(key: string, limit: number, nowMs: number): MaybePromise<RateLimitDecision> {
    return this.#decide(key, limit, nowMs, false);
  }

  #decide(key: string, limit: number, nowMs: number, admit: boolean): MaybePromise<RateLimitDecision> {
    if (!this.#switch.shared) return this.#fromMemory(key, limit, nowMs, admit);
    if (this.#switch.settling) {
      const own = this.#local.peek(key, limit, nowMs);
      if (!own.allowed) return own;
    }
    // One promise per decision, settled straight from the batch's answer (RedisRateLimiter.decide).
    return new Promise((resolve, reject) => {
      this.#shared.decide(key, limit, admit, nowMs, (decision, error) => {
        try {
          if (decision === null) {
            this.#switch.lost(error);
            resolve(this.#fromMemory(key, limit, nowMs, admit));
            return;
          }
          this.#switch.answered();
          if (admit && decision.allowed) this.#local.take(key, limit, nowMs);
          resolve(decision);
        } catch (fault) {
          reject(fault);
        }
      });
    });
  }

  /** This instance's own decision: `take` when `admit`, else `peek`. */
  #fromMemory(key: string, limit: number, nowMs: number, admit: boolean): RateLimitDecision {
    return admit ? this.#local.take(key, limit, nowMs) : this.#local.peek(key, limit, nowMs);
  }

  async close(): Promise<void> {
    await Promise.all([this.#shared.close(), this.#local.close()]);
  }
}
