import { type Command, Redis, type RedisOptions } from 'ioredis';

interface RedisConnectionOptions {
  /**
   * How long a command may wait for its answer before it fails, and the limiter decides from
   * memory instead. A decision normally takes well under a millisecond.
   */
  commandTimeoutMs?: number;
}

/** How a command that Redis did not answer within the connection's timeout fails. */
export class CommandTimeoutError extends Error {
  constructor() {
    super('Command timed out');
    this.name = 'CommandTimeoutError';
  }
}

/** Sent commands the FIFO keeps before it drops those already passed (amortises the copy). */
const compactAfter = 1024;

/** A command sent, until it is answered: then `command` is let go (null). */
interface SentCommand {
  command: Command | null;
  /** When it times out, in performance.now() time. */
  deadline: number;
}

/**
 * A client whose command timeout measures Redis, not this process's event loop. A loop that was
 * busy (a burst of requests) or not scheduled (a loaded machine) runs its expired timers before it
 * reads its sockets, so ioredis's own `commandTimeout` fails a command whose answer arrived in time
 * and only waits to be read: each such false timeout sends the limits local, and a burst spread
 * over several instances is then admitted several times over. Here an expired deadline first lets
 * the loop read what has arrived (`setImmediate` runs after that), and fails only a command still
 * unanswered then.
 *
 * One timer serves every command: commands are kept in sending order with their deadlines (one
 * timeout, so deadlines are in order too), and the timer is armed for the oldest one not yet
 * known to be answered. Redis answers a connection's commands in order, so under steady load the
 * timer finds the oldest answered and re-arms about once per timeout, instead of one timer
 * started per command.
 *
 * A command is let go as soon as it is answered (its promise settles, an error reply included).
 * Kept until the timer came round, an answered command (its keys, arguments and reply) stayed
 * referenced for up to a whole timeout: under load that outlived two collections of V8's young
 * generation, so every batch of decisions was copied into the old generation and collected from
 * there (docs/decisions/0019-redis-commands-released-when-answered.md).
 */
class ReadBeforeTimeoutRedis extends Redis {
  readonly #timeoutMs: number;
  /** In sending order from #head on. */
  #sent: SentCommand[] = [];
  #head = 0;
  /** Whether the timer, or the check that follows it, is pending. */
  #watching = false;
  readonly #sweep = () => {
    this.#dropAnswered();
    const now = performance.now();
    if (this.#head === this.#sent.length) this.#watching = false;
    else if ((this.#sent[this.#head] as SentCommand).deadline > now) this.#arm(now);
    // Its answer may be read and waiting in the socket: read it first, then judge.
    else setImmediate(this.#expire, now);
  };
  readonly #expire = (cutoff: number) => {
    while (this.#head < this.#sent.length && (this.#sent[this.#head] as SentCommand).deadline <= cutoff) {
      const { command } = this.#sent[this.#head] as SentCommand;
      this.#head++;
      command?.reject(new CommandTimeoutError());
    }
    this.#dropAnswered();
    if (this.#head < this.#sent.length) this.#arm(performance.now());
    else this.#watching = false;
  };

  constructor(url: string, options: RedisOptions, timeoutMs: number) {
    super(url, options);
    this.#timeoutMs = timeoutMs;
  }

  override sendCommand(command: Command, stream?: Parameters<Redis['sendCommand']>[1]): unknown {
    const now = performance.now();
    this.#dropAnswered();
    const sent: SentCommand = { command, deadline: now + this.#timeoutMs };
    this.#sent.push(sent);
    const answered = () => {
      sent.command = null;
    };
    command.promise.then(answered, answered);
    if (!this.#watching) {
      this.#watching = true;
      this.#arm(now);
    }
    return super.sendCommand(command, stream);
  }

  /** Arms the timer for the oldest command kept (there is one). */
  #arm(now: number): void {
    setTimeout(this.#sweep, Math.max(0, (this.#sent[this.#head] as SentCommand).deadline - now)).unref();
  }

  /** Forgets the answered commands at the front, and the space of every command passed. */
  #dropAnswered(): void {
    while (this.#head < this.#sent.length && (this.#sent[this.#head] as SentCommand).command === null)
      this.#head++;
    if (this.#head === this.#sent.length) {
      this.#sent = [];
      this.#head = 0;
    } else if (this.#head >= compactAfter) {
      this.#sent = this.#sent.slice(this.#head);
      this.#head = 0;
    }
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
