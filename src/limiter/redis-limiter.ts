import type { Redis } from 'ioredis';
import { DecisionBatch, type DecisionCallback } from './redis/decision-batch.ts';
import { slidingLogScript } from './redis/sliding-log-script.ts';
import type { RateLimitDecision, RateLimiter } from './types.ts';

/** Name of the script's command on the ioredis client (defineCommand). */
const command = 'nerkhSlidingLog';

/** The client as it is once `defineCommand` has added the script (key count, keys, arguments). */
type ClientWithScript = Redis & {
  [command](keyCount: number, keys: string[], args: Array<string | number>): Promise<number[]>;
};

interface RedisRateLimiterOptions {
  /** The connection, shared by every limiter of the process; whoever opened it closes it. */
  redis: Redis;
  windowMs: number;
  /**
   * Start of every key this limiter writes, e.g. `nerkh:rl2:`; the key's own name follows in
   * braces (`nerkh:rl2:{<key>}`), a Redis Cluster hash tag, so any further key kept for the same
   * limit key lands on the same slot as its admissions.
   */
  prefix: string;
  /**
   * Whose clock places a request in the window. `redis` (the default) reads Redis's TIME inside
   * the script and ignores the `nowMs` callers pass, so API instances whose clocks drift apart
   * still share one window. `caller` takes `nowMs` (for tests that simulate time); the key's TTL
   * then assumes that clock runs at the pace of real time.
   */
  clock?: 'redis' | 'caller';
}

/**
 * The exact rolling window of MemoryRateLimiter, shared by every API instance through Redis: a
 * string per key holds the times of the admitted requests of the last window (a sliding log), and
 * a Lua script counts, admits and drops what can no longer count atomically, so concurrent
 * instances can never together admit more than the limit in any window, and a refused request
 * counts nothing.
 *
 * Hand-written because no maintained npm limiter offers this window on Redis: @fastify/rate-limit's
 * Redis store INCRs a counter whose PEXPIRE is set by the key's first request (a fixed window
 * from that request; refused requests are counted too), and rate-limiter-flexible's RateLimiterRedis
 * is a fixed-window counter as well (its README and maintainer say so: it is faster than a rolling
 * window). Both admit up to twice the limit in some 60 s interval, across a window boundary;
 * the "sliding window" of others (e.g. @upstash/ratelimit) weighs the previous fixed window's count,
 * an approximation that can also over- or under-admit.
 *
 * The decisions of one event-loop turn go to Redis in script calls of 16 (DecisionBatch).
 * A call's keys span hash slots: standalone Redis, the only kind nerkh connects to, accepts that; a
 * Redis Cluster would refuse it (CROSSSLOT), and a client for one would have to split each batch
 * by slot (the `{key}` hash tag keeps all of one key's data on one slot, so that split is possible).
 * The script is sent once per connection (ioredis `defineCommand`: EVALSHA, and EVAL when Redis
 * answers NOSCRIPT after a restart or SCRIPT FLUSH), so a batch is one round trip.
 */
export class RedisRateLimiter implements RateLimiter {
  readonly #prefix: string;
  readonly #callerClock: boolean;
  readonly #batch: DecisionBatch;

  constructor(options: RedisRateLimiterOptions) {
    if (!(command in options.redis)) options.redis.defineCommand(command, { lua: slidingLogScript });
    const redis = options.redis as ClientWithScript;
    this.#prefix = options.prefix;
    this.#callerClock = options.clock === 'caller';
    this.#batch = new DecisionBatch(
      (keys, args) => redis[command](keys.length, keys, args),
      options.windowMs,
    );
  }

  take(key: string, limit: number, nowMs: number): Promise<RateLimitDecision> {
    return this.#promised(key, limit, true, nowMs);
  }

  peek(key: string, limit: number, nowMs: number): Promise<RateLimitDecision> {
    return this.#promised(key, limit, false, nowMs);
  }

  #promised(key: string, limit: number, admit: boolean, nowMs: number): Promise<RateLimitDecision> {
    return new Promise((resolve, reject) => {
      this.decide(key, limit, admit, nowMs, (decision, error) => {
        if (decision === null) reject(error);
        else resolve(decision);
      });
    });
  }

  /**
   * `take` (admit true) or `peek`, answered through `done` instead of a promise of its own, for a
   * caller that answers with a promise of its own anyway (FallbackRateLimiter).
   */
  decide(key: string, limit: number, admit: boolean, nowMs: number, done: DecisionCallback): void {
    this.#batch.decide(
      `${this.#prefix}{${key}}`,
      limit,
      admit ? '1' : '0',
      this.#callerClock ? nowMs : '',
      done,
    );
  }

  /** Nothing to release: the connection belongs to whoever opened it. */
  async close(): Promise<void> {}
}
