import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Command } from 'ioredis';
import { describe, expect, it, onTestFinished } from 'vitest';
import { CommandTimeoutError, redisConnection } from '../../../src/limiter/redis/connection.ts';
import { redisAvailable, testRedisUrl } from '../../support/redis.ts';
import { TcpProxy } from '../../support/tcp-proxy.ts';

const available = await redisAvailable('Redis connection tests');

/** V8's full collection, which a test may ask for (a new context sees the flag set here). */
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** Keeps the event loop busy for `ms`, as a burst of requests or a starved process does. */
function block(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy
  }
}

/**
 * A connection through a proxy that stops passing anything on once connected, so Redis says
 * nothing until the proxy is restored.
 */
async function stalledConnection(commandTimeoutMs: number) {
  const proxy = await TcpProxy.start(6379);
  onTestFinished(() => proxy.close());
  const redis = redisConnection(`redis://127.0.0.1:${proxy.port}`, { commandTimeoutMs });
  onTestFinished(() => redis.disconnect());
  await redis.connect();
  proxy.stall();
  return { redis, proxy };
}

describe.skipIf(!available)('redisConnection', () => {
  it('does not time out a command whose answer arrived while the event loop was busy past the timeout', async () => {
    const redis = redisConnection(testRedisUrl, { commandTimeoutMs: 50 });
    onTestFinished(async () => {
      await redis.quit();
    });
    await redis.connect();
    const answers = [redis.ping(), redis.ping(), redis.ping()];
    block(200);
    expect(await Promise.all(answers)).toEqual(['PONG', 'PONG', 'PONG']);
  });

  it('lets go of a command once it is answered, not a timeout later', async () => {
    const redis = redisConnection(testRedisUrl, { commandTimeoutMs: 60_000 });
    onTestFinished(async () => {
      await redis.quit();
    });
    await redis.connect();
    /** Sends a command, waits for its answer, and keeps only a weak reference to it. */
    const answered = async (name: string, args: string[]) => {
      const command = new Command(name, args, { replyEncoding: 'utf8' });
      redis.sendCommand(command);
      await command.promise.catch(() => {});
      return new WeakRef(command);
    };
    // An answer, and an error reply (a command Redis refuses).
    const ping = await answered('ping', []);
    const refused = await answered('incr', ['nerkh-test:not-a-number', 'extra']);
    // A weak reference holds its target until the end of the job that made it.
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
    expect(ping.deref()).toBeUndefined();
    expect(refused.deref()).toBeUndefined();
  });

  it('times out a command that Redis does not answer, after about the timeout', async () => {
    const { redis } = await stalledConnection(100);
    const sent = performance.now();
    await expect(redis.ping()).rejects.toThrow('Command timed out');
    const waited = performance.now() - sent;
    expect(waited).toBeGreaterThanOrEqual(100);
    expect(waited).toBeLessThan(1000);
  });

  it('times out each unanswered command a timeout after it was sent, not with the oldest one', async () => {
    const { redis, proxy } = await stalledConnection(100);
    /** When the command's promise settled, in ms after `sent`, or -1 if it was answered. */
    const failedAfter = (sent: number, answer: Promise<unknown>) =>
      answer.then(
        () => -1,
        (error: Error) => {
          expect(error).toBeInstanceOf(CommandTimeoutError);
          return performance.now() - sent;
        },
      );
    const first = performance.now();
    const early = [failedAfter(first, redis.ping()), failedAfter(first, redis.ping())];
    await new Promise((resolve) => setTimeout(resolve, 60));
    const second = performance.now();
    const late = failedAfter(second, redis.ping());
    const [a, b] = await Promise.all(early);
    const c = await late;
    for (const waited of [a, b, c]) {
      expect(waited).toBeGreaterThanOrEqual(100);
      expect(waited).toBeLessThan(1000);
    }
    // Once Redis answers again, so do new commands: nothing old is left to fail them.
    proxy.restore();
    expect(await redis.ping()).toBe('PONG');
  });
});
