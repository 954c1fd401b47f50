import { type Command, Redis, type RedisOptions } from 'ioredis';

interface RedisConnectionOptions {
  /**
   * How long a command may wait for its answer before it fails, and the limiter decides from
   * memory instead. A decision normally takes well under a millisecond.
   */
  commandTimeoutMs?: number;
}

/**
 * A client whose command timeout measures Redis, not this process's event loop. A loop that was
 * busy (a burst of requests) or not scheduled (a loaded machine) runs its expired timers before it
 * reads its sockets, so ioredis's own `commandTimeout` fails a command whose answer arrived in time
 * and only waits to be read: each such false timeout sends the limits local, and a burst spread
 * over several instances is then admitted several times over. Here an expired timer first lets the
 * loop read what has arrived (`setImmediate` runs after that), and fails only a command still
 * unanswered then.
 */
class ReadBeforeTimeoutRedis extends Redis {
  readonly #timeoutMs: number;

  constructor(url: string, options: RedisOptions, timeoutMs: number) {
    super(url, options);
    this.#timeoutMs = timeoutMs;
  }

  override sendCommand(command: Command, stream?: Parameters<Redis['sendCommand']>[1]): unknown {
    // Not cleared when answered (that would cost a promise per command): it then finds it resolved.
    setTimeout(() => {
      if (command.isResolved) return;
      setImmediate(() => {
        if (!command.isResolved) command.reject(new Error('Command timed out'));
      });
    }, this.#timeoutMs);
    return super.sendCommand(command, stream);
  }
}

/**
 * A connection for the limiters, set up so that a Redis that is down or stalled costs a request
 * at most one command timeout, and never an error:
 * - no offline queue: while disconnected a command fails at once instead of waiting for a
 *   reconnection that may take seconds;
 * - a command timeout, for a Redis (or a network) that holds the connection open but answers
 *   nothing, that a busy event loop does not set off (ReadBeforeTimeoutRedis);
 * - commands in flight when the connection drops fail at once and are not sent again after the
 *   reconnection (Redis may have run them already, and the request has had its answer);
 * - reconnection attempts at most a second apart, so the shared limit is back within seconds of
 *   Redis answering again;
 * - no auto-pipelining: the limiters already send the decisions of one event-loop turn as one
 *   command (DecisionBatch), from a setImmediate; ioredis's auto-pipelining would hold that
 *   command for one more setImmediate, a whole further turn of the loop, and gather nothing more.
 * The connection is not opened here: `connect()` it, and `quit()` it at the end.
 */
export function redisConnection(url: string, options: RedisConnectionOptions = {}): Redis {
  return new ReadBeforeTimeoutRedis(
    url,
    {
      lazyConnect: true,
      enableOfflineQueue: false,
      enableAutoPipelining: false,
      connectTimeout: 2000,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
    },
    options.commandTimeoutMs ?? 250,
  );
}
