import { Redis } from 'ioredis';

interface RedisConnectionOptions {
  /**
   * How long a command may wait for its answer before it fails, and the limiter decides from
   * memory instead. A decision normally takes well under a millisecond.
   */
  commandTimeoutMs?: number;
}

/**
 * A connection for the limiters, set up so that a Redis that is down or stalled costs a request
 * at most one command timeout, and never an error:
 * - no offline queue: while disconnected a command fails at once instead of waiting for a
 *   reconnection that may take seconds;
 * - a command timeout, for a Redis (or a network) that holds the connection open but answers
 *   nothing;
 * - commands in flight when the connection drops fail at once and are not sent again after the
 *   reconnection (Redis may have run them already, and the request has had its answer);
 * - reconnection attempts at most a second apart, so the shared limit is back within seconds of
 *   Redis answering again.
 * The connection is not opened here: `connect()` it, and `quit()` it at the end.
 */
export function redisConnection(url: string, options: RedisConnectionOptions = {}): Redis {
  return new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    commandTimeout: options.commandTimeoutMs ?? 250,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
  });
}
