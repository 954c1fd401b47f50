import type { Redis } from 'ioredis';
import type { PauseBroadcast } from '../failed-key-throttle.ts';

/**
 * Records a pause in the set of pauses in force and announces it, atomically, on Redis's clock:
 * KEYS[1] the set (address → end of its pause, Redis time in ms), ARGV[1] the address, ARGV[2]
 * the pause in ms, ARGV[3] the channel. Ended pauses are dropped on the way, and the set expires
 * with its longest pause, so an idle service keeps nothing.
 */
const pauseScript = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local ms = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZADD', KEYS[1], 'GT', now + ms, ARGV[1])
if redis.call('PTTL', KEYS[1]) < ms then redis.call('PEXPIRE', KEYS[1], ms) end
redis.call('PUBLISH', ARGV[3], ARGV[2] .. ' ' .. ARGV[1])
`;

/** The pauses in force, as { address, ms left, … } on Redis's clock (at most 100,000). */
const pausesInForceScript = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local found = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf', 'WITHSCORES', 'LIMIT', 0, 100000)
for index = 2, #found, 2 do found[index] = tostring(tonumber(found[index]) - now) end
return found
`;

type ClientWithScripts = Redis & {
  nerkhPause(key: string, address: string, ms: string, channel: string): Promise<unknown>;
  nerkhPausesInForce(key: string): Promise<string[]>;
};

interface RedisPauseBroadcastOptions {
  /** The limiters' connection: publishing and re-reading go through it. */
  redis: Redis;
  /** The set of pauses in force; its name, with the database number, also names the channel. */
  key: string;
}

/**
 * The invalid-key throttle's pauses shared through Redis: a pause is written to a sorted set and
 * published in one script; every instance subscribes on a connection of its own (a subscribed
 * connection can run nothing else) and, each time that connection is (re)established, re-reads
 * the set, so the pauses published while it was away are applied too. Pub/sub channels are not
 * per database, so the channel's name carries the database number: services on different
 * databases of one Redis do not pause each other.
 */
export class RedisPauseBroadcast implements PauseBroadcast {
  readonly #redis: ClientWithScripts;
  readonly #subscriber: Redis;
  readonly #key: string;
  readonly #channel: string;
  #listener: ((address: string, ms: number) => void) | null = null;
  #closed = false;

  constructor(options: RedisPauseBroadcastOptions) {
    const { redis, key } = options;
    if (!('nerkhPause' in redis)) {
      redis.defineCommand('nerkhPause', { numberOfKeys: 1, lua: pauseScript });
      redis.defineCommand('nerkhPausesInForce', { numberOfKeys: 1, lua: pausesInForceScript });
    }
    this.#redis = redis as ClientWithScripts;
    this.#key = key;
    this.#channel = `${key}@${redis.options.db ?? 0}`;
    this.#subscriber = redis.duplicate({ autoResubscribe: false, enableAutoPipelining: false });
    // The connection's state is the fallback switch's business; errors here only mean "not yet".
    this.#subscriber.on('error', () => {});
    this.#subscriber.on('ready', () => void this.#subscribe());
    this.#subscriber.on('message', (_channel: string, message: string) => this.#heard(message));
  }

  publish(address: string, ms: number): void {
    this.#redis.nerkhPause(this.#key, address, String(ms), this.#channel).catch(() => {});
  }

  listen(listener: (address: string, ms: number) => void): void {
    this.#listener = listener;
    this.#subscriber.connect().catch(() => {});
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#subscriber.disconnect();
  }

  async #subscribe(): Promise<void> {
    try {
      await this.#subscriber.subscribe(this.#channel);
      // Read after subscribing, so no pause falls between the read and the first message.
      const found = await this.#redis.nerkhPausesInForce(this.#key);
      for (let index = 0; index + 1 < found.length; index += 2) {
        this.#listener?.(found[index] as string, Number(found[index + 1]));
      }
    } catch {
      // Redis went away again; the next 'ready' tries again.
    }
  }

  #heard(message: string): void {
    if (this.#closed) return;
    const space = message.indexOf(' ');
    const ms = Number(message.slice(0, space));
    if (space > 0 && ms > 0) this.#listener?.(message.slice(space + 1), ms);
  }
}
