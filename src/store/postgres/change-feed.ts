import pg from 'pg';
import type { Logger } from '../../logger.ts';
import type { ChangeFeed, StoreChange } from '../types.ts';
import { clientConfigOf, reasonOf } from './pool.ts';

/** The channels the triggers of migration 3 notify, in the transaction that makes the change. */
const channels: Readonly<Record<StoreChange, string>> = {
  snapshot: 'nerkh_snapshots',
  keys: 'nerkh_api_keys',
};
const kindOf = new Map(Object.entries(channels).map(([kind, channel]) => [channel, kind as StoreChange]));

interface PostgresChangeFeedOptions {
  url: string;
  logger: Logger;
  /** Pause before connecting again after the connection dropped (default 1 s). */
  retryMs?: number;
  /**
   * How often the idle connection is checked with a query (default 10 s): a network cut without a
   * TCP reset leaves a listening connection silent, not closed, and only a query notices it.
   */
  heartbeatMs?: number;
}

/**
 * Changes as PostgreSQL announces them (LISTEN/NOTIFY) on one connection of this process's own, out
 * of the pool: a listening session must stay open, and a pooled one would be handed to queries.
 * When the connection drops it is opened again every `retryMs`, the loss and the return logged
 * once each; on its return every kind is reported, since notices sent meanwhile were lost.
 */
export class PostgresChangeFeed implements ChangeFeed {
  readonly #url: string;
  readonly #logger: Logger;
  readonly #retryMs: number;
  readonly #heartbeatMs: number;
  readonly #listeners: Readonly<Record<StoreChange, Set<() => void>>> = {
    snapshot: new Set(),
    keys: new Set(),
  };
  #client: pg.Client | null = null;
  #retryTimer: NodeJS.Timeout | null = null;
  #heartbeatTimer: NodeJS.Timeout | null = null;
  /** Whether it ever listened: a later start is a return, after which every kind is reported. */
  #listenedBefore = false;
  /** The loss was logged; cleared once listening again, so a flapping connection logs each switch once. */
  #lossLogged = false;
  #closed = false;

  constructor(options: PostgresChangeFeedOptions) {
    this.#url = options.url;
    this.#logger = options.logger;
    this.#retryMs = options.retryMs ?? 1000;
    this.#heartbeatMs = options.heartbeatMs ?? 10_000;
  }

  /** Connects and listens; a failure is logged and retried, never thrown: the polls cover meanwhile. */
  async start(): Promise<void> {
    await this.#connect();
  }

  onChange(kind: StoreChange, listener: () => void): () => void {
    this.#listeners[kind].add(listener);
    return () => this.#listeners[kind].delete(listener);
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#retryTimer !== null) clearTimeout(this.#retryTimer);
    if (this.#heartbeatTimer !== null) clearInterval(this.#heartbeatTimer);
    const client = this.#client;
    this.#client = null;
    await client?.end().catch(() => {});
  }

  async #connect(): Promise<void> {
    this.#retryTimer = null;
    // A short read timeout: the heartbeat must notice a silent connection in seconds.
    const client = new pg.Client({ ...clientConfigOf(this.#url), query_timeout: 5000 });
    this.#client = client;
    client.on('notification', (message) => {
      const kind = kindOf.get(message.channel);
      if (kind !== undefined) this.#report(kind);
    });
    client.on('error', (error) => this.#lost(client, error));
    client.on('end', () => this.#lost(client, 'the connection closed'));
    try {
      await client.connect();
      await client.query(`LISTEN ${channels.snapshot}; LISTEN ${channels.keys}`);
    } catch (error) {
      this.#lost(client, error);
      return;
    }
    if (client !== this.#client) return;
    // One heartbeat at a time: a slow answer must not queue a second query on the same connection.
    let beating = false;
    this.#heartbeatTimer = setInterval(() => {
      if (beating) return;
      beating = true;
      client
        .query('SELECT 1')
        .catch((error: unknown) => this.#lost(client, error))
        .finally(() => {
          beating = false;
        });
    }, this.#heartbeatMs);
    this.#heartbeatTimer.unref();
    if (this.#lossLogged) {
      this.#lossLogged = false;
      this.#logger.info('store changes: listening again; re-reading the snapshot and the keys');
    }
    if (this.#listenedBefore) {
      this.#report('snapshot');
      this.#report('keys');
    }
    this.#listenedBefore = true;
  }

  #lost(client: pg.Client, error: unknown): void {
    // Only the current connection's first failure counts: 'error' and 'end' both follow a drop.
    if (client !== this.#client || this.#closed) return;
    this.#client = null;
    if (this.#heartbeatTimer !== null) clearInterval(this.#heartbeatTimer);
    this.#heartbeatTimer = null;
    client.end().catch(() => {});
    if (!this.#lossLogged) {
      this.#lossLogged = true;
      this.#logger.warn(
        { reason: reasonOf(error) },
        'store changes: not listening to PostgreSQL; this instance learns of changes by polling each second until it is back',
      );
    }
    this.#retryTimer = setTimeout(() => void this.#connect(), this.#retryMs);
    this.#retryTimer.unref();
  }

  #report(kind: StoreChange): void {
    for (const listener of this.#listeners[kind]) {
      try {
        listener();
      } catch (error) {
        this.#logger.error({ err: error, kind }, 'store changes: a listener failed');
      }
    }
  }
}
