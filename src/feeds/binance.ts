/**
 * Binance source adapter: coin prices in USDT from the `<pair>@ticker` streams
 * (https://developers.binance.com/docs/binance-spot-api-docs/web-socket-streams).
 *
 * - Subscribes through the combined-stream URL `/stream?streams=a@ticker/b@ticker`, at most
 *   `streamsPerConnection` streams per connection (Binance allows 1024, but a 1024-stream URL is
 *   ~16 KB; 200 keeps it near 3 KB), so no SUBSCRIBE messages count against the 5 msg/s limit.
 * - Answers server pings: the `ws` client echoes every ping payload in a pong by itself
 *   (`autoPong`, on by default), which is exactly what Binance requires.
 * - Treats a connection that has sent nothing — no data and no ping — for `stallMs` as stalled
 *   and replaces it. Pings count as liveness because quiet pairs may not tick for minutes.
 * - Reconnects after any close or error with exponential backoff and full jitter; the attempt
 *   counter resets once a connection has stayed open for `healthyAfterMs`.
 * - Binance closes every connection at the 24 h mark, so each connection is replaced before that
 *   (`maxConnectionMs`), make-before-break: the new socket opens before the old one is closed.
 * - Validates every field it uses; invalid frames are counted through `listener.rejected` and
 *   never published. A price ×1000 is still a valid number and is passed on: judging jumps needs
 *   the last accepted price, so the collector's jump guard (`priceRejection`) rejects it.
 */
import { WebSocket } from 'ws';
import type { Logger } from '../logger.ts';
import { fullJitterDelay } from './backoff.ts';
import { parseRestTicker, parseTickerFrame, type TickerResult } from './binance-ticker.ts';
import type { ConnectionState, Feed, FeedListener } from './types.ts';

export interface BinanceFeedOptions {
  /** Config `NERKH_BINANCE_WS_URL`, e.g. 'wss://stream.binance.com:9443'. */
  wsBaseUrl: string;
  /** Config `NERKH_BINANCE_REST_URL`; when given, quotes are bootstrapped once from `GET /api/v3/ticker/24hr`. */
  restBaseUrl?: string;
  /** Upper-case pairs, e.g. ['BTCUSDT', 'ETHUSDT']. */
  pairs: readonly string[];
  listener: FeedListener;
  logger: Logger;
  /** No message (data or ping) for this long → stalled, reconnect. Default 30 000 (Binance pings every 20 s). */
  stallMs?: number;
  /** First backoff ceiling; doubles per failed attempt up to `backoffMaxMs`. Default 500. */
  backoffBaseMs?: number;
  /** Default 30 000. */
  backoffMaxMs?: number;
  /** Open this long → the connection counts as healthy and the backoff resets. Default 60 000. */
  healthyAfterMs?: number;
  /** Replace each connection after this long, before Binance's 24 h cap. Default 23 h. */
  maxConnectionMs?: number;
  /** Default 200; Binance allows up to 1024. */
  streamsPerConnection?: number;
  /** Per REST bootstrap request. Default 5 000. */
  restTimeoutMs?: number;
}

interface Timing {
  stallMs: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  healthyAfterMs: number;
  maxConnectionMs: number;
}

/** Binance REST: 100+ symbols in one `symbols=[…]` request cost the maximum weight anyway. */
const REST_BATCH = 100;
const PAIR = /^[A-Z0-9]{2,20}$/;
const STATE_RANK: Record<ConnectionState, number> = {
  open: 0,
  connecting: 1,
  stalled: 2,
  backoff: 3,
  closed: 4,
};

function chunk<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}

class BinanceRestError extends Error {
  constructor(
    readonly status: number,
    readonly code: number | null,
    message: string,
  ) {
    super(message);
  }
}

/** A closing handshake gets 1 s, not ws's 30 s default, so stop() and rotation finish promptly. */
function closePromptly(socket: WebSocket, reason: string): void {
  const force = setTimeout(() => socket.terminate(), 1000);
  socket.once('close', () => clearTimeout(force));
  socket.close(1000, reason);
}

interface ConnectionEvents {
  frame(text: string): void;
  state(state: ConnectionState, detail: string): void;
}

/** One WebSocket to Binance with its own stall detection, backoff and 24 h rotation. */
class TickerConnection {
  private socket: WebSocket | null = null;
  /** The socket that will take over at rotation, while it is still connecting. */
  private replacement: WebSocket | null = null;
  private readonly sockets = new Set<WebSocket>();
  private attempt = 0;
  private stopped = false;
  private stalled = false;
  private lastError: string | null = null;
  private stallTimer: NodeJS.Timeout | undefined;
  private healthyTimer: NodeJS.Timeout | undefined;
  private rotateTimer: NodeJS.Timeout | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private drained: (() => void) | null = null;

  constructor(
    private readonly url: string,
    private readonly description: string,
    private readonly timing: Timing,
    private readonly events: ConnectionEvents,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.connect();
  }

  stop(): Promise<void> {
    this.stopped = true;
    this.clearTimers();
    clearTimeout(this.reconnectTimer);
    if (this.sockets.size === 0) return Promise.resolve();
    const drained = new Promise<void>((resolve) => {
      this.drained = resolve;
    });
    for (const socket of this.sockets) closePromptly(socket, 'client shutting down');
    return drained;
  }

  private connect(): void {
    this.stalled = false;
    this.lastError = null;
    this.events.state('connecting', `connecting to ${this.description}`);
    this.socket = this.openSocket();
  }

  private openSocket(): WebSocket {
    const socket = new WebSocket(this.url, {
      handshakeTimeout: this.timing.stallMs,
      perMessageDeflate: false,
    });
    this.sockets.add(socket);
    socket.on('open', () => this.onOpen(socket));
    socket.on('message', (data, isBinary) => {
      if (this.stopped) return;
      if (socket === this.socket) this.armStallTimer();
      if (!isBinary) this.events.frame(data.toString());
    });
    socket.on('ping', () => {
      if (socket === this.socket) this.armStallTimer();
    });
    socket.on('error', (error) => {
      if (socket === this.socket || socket === this.replacement) this.lastError = error.message;
      this.logger.debug({ err: error, source: 'binance' }, 'binance websocket error');
    });
    socket.on('close', (code, reason) => this.onClose(socket, code, reason.toString()));
    return socket;
  }

  private onOpen(socket: WebSocket): void {
    if (this.stopped) return;
    if (socket === this.replacement) {
      const retiring = this.socket;
      this.socket = socket;
      this.replacement = null;
      if (retiring) closePromptly(retiring, 'replaced before the 24 h limit');
      this.armOpenTimers();
      this.events.state('open', `${this.description}: replaced the connection before Binance's 24 h limit`);
      return;
    }
    if (socket !== this.socket) return;
    this.armOpenTimers();
    this.events.state('open', `connected to ${this.description}`);
  }

  private onClose(socket: WebSocket, code: number, reason: string): void {
    this.sockets.delete(socket);
    if (this.stopped) {
      if (this.sockets.size === 0) this.drained?.();
      return;
    }
    if (socket === this.replacement) {
      this.replacement = null;
      this.logger.warn(
        { source: 'binance', code, error: this.lastError },
        'binance: replacement connection failed; keeping the current one and retrying later',
      );
      this.rotateTimer = setTimeout(() => this.rotate(), this.timing.backoffMaxMs);
      return;
    }
    if (socket !== this.socket) return;
    this.clearTimers();
    if (this.replacement) {
      // The server closed the old connection first; the one already on its way takes over.
      this.socket = this.replacement;
      this.replacement = null;
      this.events.state('connecting', `connecting to ${this.description}`);
      return;
    }
    this.socket = null;
    let why: string;
    if (this.stalled) why = `stalled (nothing received for ${this.timing.stallMs} ms)`;
    else if (code === 1006 && this.lastError) why = `connection failed: ${this.lastError}`;
    else if (code === 1006) why = 'connection dropped abruptly';
    else why = `closed by the server (code ${code}${reason ? `: ${reason}` : ''})`;
    this.scheduleReconnect(why);
  }

  private scheduleReconnect(why: string): void {
    const delay = fullJitterDelay(this.attempt, this.timing.backoffBaseMs, this.timing.backoffMaxMs);
    this.attempt += 1;
    this.events.state('backoff', `${why}; reconnecting in ${delay} ms (attempt ${this.attempt})`);
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
  }

  private armOpenTimers(): void {
    this.clearTimers();
    this.armStallTimer();
    this.healthyTimer = setTimeout(() => {
      this.attempt = 0;
    }, this.timing.healthyAfterMs);
    this.rotateTimer = setTimeout(() => this.rotate(), this.timing.maxConnectionMs);
  }

  private armStallTimer(): void {
    clearTimeout(this.stallTimer);
    this.stallTimer = setTimeout(() => this.onStall(), this.timing.stallMs);
  }

  private onStall(): void {
    const socket = this.socket;
    if (!socket || this.stopped) return;
    this.stalled = true;
    this.events.state('stalled', `${this.description}: nothing received for ${this.timing.stallMs} ms`);
    socket.terminate();
  }

  private rotate(): void {
    if (this.stopped || this.replacement || !this.socket) return;
    this.logger.info(
      { source: 'binance' },
      'binance: opening a replacement connection before the 24 h limit',
    );
    this.replacement = this.openSocket();
  }

  private clearTimers(): void {
    clearTimeout(this.stallTimer);
    clearTimeout(this.healthyTimer);
    clearTimeout(this.rotateTimer);
  }
}

export class BinanceFeed implements Feed {
  readonly source = 'binance' as const;
  private readonly pairs: ReadonlySet<string>;
  private readonly listener: FeedListener;
  private readonly logger: Logger;
  private readonly timing: Timing;
  private readonly connections: TickerConnection[] = [];
  private readonly states: ConnectionState[] = [];
  /** Pairs that already had a stream tick: a slower REST answer must not overwrite them. */
  private readonly streamed = new Set<string>();
  private bootstrapAbort: AbortController | null = null;
  private bootstrapRun: Promise<void> | null = null;
  private started = false;
  private stopping: Promise<void> | null = null;

  constructor(private readonly options: BinanceFeedOptions) {
    if (!/^wss?:\/\/\S+$/.test(options.wsBaseUrl))
      throw new Error(`wsBaseUrl must be ws:// or wss://, got ${options.wsBaseUrl}`);
    if (options.pairs.length === 0) throw new Error('BinanceFeed needs at least one pair');
    for (const pair of options.pairs) {
      if (!PAIR.test(pair))
        throw new Error(`pair "${pair}" must be an upper-case Binance symbol like BTCUSDT`);
    }
    this.pairs = new Set(options.pairs);
    this.listener = options.listener;
    this.logger = options.logger;
    this.timing = {
      stallMs: options.stallMs ?? 30_000,
      backoffBaseMs: options.backoffBaseMs ?? 500,
      backoffMaxMs: options.backoffMaxMs ?? 30_000,
      healthyAfterMs: options.healthyAfterMs ?? 60_000,
      maxConnectionMs: options.maxConnectionMs ?? 23 * 3_600_000,
    };
  }

  start(): void {
    if (this.started) throw new Error('BinanceFeed already started');
    this.started = true;
    const base = this.options.wsBaseUrl.replace(/\/+$/, '');
    const origin = new URL(base).host;
    const groups = chunk([...this.pairs], this.options.streamsPerConnection ?? 200);
    groups.forEach((group, index) => {
      const streams = group.map((pair) => `${pair.toLowerCase()}@ticker`);
      const description =
        groups.length === 1
          ? `${origin} (${streams.length} streams)`
          : `${origin} connection ${index + 1}/${groups.length} (${streams.length} streams)`;
      this.states.push('connecting');
      const connection = new TickerConnection(
        `${base}/stream?streams=${streams.join('/')}`,
        description,
        this.timing,
        {
          frame: (text) => this.onFrame(text),
          state: (state, detail) => this.onConnectionState(index, state, detail),
        },
        this.logger,
      );
      this.connections.push(connection);
      connection.start();
    });
    if (this.options.restBaseUrl) {
      const abort = new AbortController();
      this.bootstrapAbort = abort;
      this.bootstrapRun = this.bootstrap(this.options.restBaseUrl.replace(/\/+$/, ''), abort.signal);
    }
  }

  /** Idempotent: every call resolves once sockets, timers and the bootstrap are gone. */
  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  private async shutdown(): Promise<void> {
    this.bootstrapAbort?.abort();
    await this.bootstrapRun;
    await Promise.all(this.connections.map((connection) => connection.stop()));
    if (this.started) this.report('closed', 'stopped');
  }

  private onFrame(text: string): void {
    this.handle(parseTickerFrame(text, this.pairs), 'stream');
  }

  private handle(result: TickerResult, via: 'stream' | 'rest'): void {
    switch (result.kind) {
      case 'quote':
        if (via === 'rest' && this.streamed.has(result.quote.pair)) return;
        if (via === 'stream') this.streamed.add(result.quote.pair);
        this.callListener(() => this.listener.coinQuote({ ...result.quote, source: this.source }));
        return;
      case 'rejected':
        this.logger.debug({ source: 'binance', reason: result.reason, via }, 'binance: rejected ticker data');
        this.callListener(() => this.listener.rejected('binance', result.reason));
        return;
      case 'control':
        if (result.error)
          this.logger.warn({ source: 'binance', error: result.error }, 'binance: error reply');
        return;
    }
  }

  /** The collector's failure must not unwind into the socket or timer that delivered the data. */
  private callListener(call: () => void): void {
    try {
      call();
    } catch (error) {
      this.logger.error({ err: error, source: 'binance' }, 'binance: feed listener threw');
    }
  }

  /** The source's state is its worst connection's; the detail names the connection that changed. */
  private onConnectionState(index: number, state: ConnectionState, detail: string): void {
    this.states[index] = state;
    const worst = this.states.reduce((a, b) => (STATE_RANK[b] > STATE_RANK[a] ? b : a), 'open');
    this.report(worst, detail);
  }

  private report(state: ConnectionState, detail: string): void {
    const healthy = state === 'open' || state === 'connecting' || state === 'closed';
    (healthy ? this.logger.info : this.logger.warn).call(
      this.logger,
      { source: 'binance', state },
      `binance ${state}: ${detail}`,
    );
    this.callListener(() => this.listener.connectionState('binance', state, detail));
  }

  /** One pass over `GET /api/v3/ticker/24hr?symbols=[…]` so rows have prices before the first tick. */
  private async bootstrap(restBase: string, signal: AbortSignal): Promise<void> {
    for (const batch of chunk([...this.pairs], REST_BATCH)) {
      if (signal.aborted) return;
      try {
        this.acceptRest(
          await this.fetchTickers(restBase, `symbols=${encodeURIComponent(JSON.stringify(batch))}`, signal),
        );
      } catch (error) {
        if (signal.aborted) return;
        if (error instanceof BinanceRestError && error.status === 200) {
          this.handle({ kind: 'rejected', reason: 'invalid-json' }, 'rest');
        } else if (error instanceof BinanceRestError && error.code === -1121) {
          // One unknown symbol fails the whole batch; ask pair by pair to find it and keep the rest.
          await this.bootstrapOneByOne(restBase, batch, signal);
        } else {
          this.logger.warn(
            { source: 'binance', err: error },
            'binance: REST bootstrap failed; waiting for stream ticks',
          );
        }
      }
    }
  }

  private async bootstrapOneByOne(restBase: string, pairs: string[], signal: AbortSignal): Promise<void> {
    for (const pair of pairs) {
      if (signal.aborted) return;
      try {
        this.acceptRest(await this.fetchTickers(restBase, `symbol=${encodeURIComponent(pair)}`, signal));
      } catch (error) {
        if (signal.aborted) return;
        this.logger.warn(
          { source: 'binance', pair, err: error },
          'binance: REST bootstrap failed for a pair',
        );
      }
    }
  }

  private acceptRest(body: unknown): void {
    const items = Array.isArray(body) ? body : [body];
    const now = Date.now();
    for (const item of items) this.handle(parseRestTicker(item, this.pairs, now), 'rest');
  }

  private async fetchTickers(restBase: string, query: string, signal: AbortSignal): Promise<unknown> {
    const response = await fetch(`${restBase}/api/v3/ticker/24hr?${query}`, {
      signal: AbortSignal.any([signal, AbortSignal.timeout(this.options.restTimeoutMs ?? 5_000)]),
      headers: { accept: 'application/json' },
    });
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new BinanceRestError(response.status, null, `HTTP ${response.status}: body is not JSON`);
    }
    if (!response.ok) {
      const { code, msg } = (body ?? {}) as { code?: unknown; msg?: unknown };
      throw new BinanceRestError(
        response.status,
        typeof code === 'number' ? code : null,
        `HTTP ${response.status}${typeof msg === 'string' ? `: ${msg}` : ''}`,
      );
    }
    return body;
  }
}
