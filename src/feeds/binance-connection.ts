/**
 * One WebSocket connection to Binance's market streams
 * (https://developers.binance.com/docs/binance-spot-api-docs/web-socket-streams), kept alive:
 * - Answers server pings: the `ws` client echoes every ping payload in a pong by itself
 *   (`autoPong`, on by default), which is exactly what Binance requires.
 * - Treats a connection that has sent nothing — no data and no ping — for `stallMs` as stalled
 *   and replaces it. Pings count as liveness because quiet pairs may not tick for minutes.
 * - Reconnects after any close or error with exponential backoff and full jitter; the attempt
 *   counter resets once a connection has stayed open for `healthyAfterMs`.
 * - Binance closes every connection at the 24 h mark, so each connection is replaced before that
 *   (`maxConnectionMs`), make-before-break: the new socket opens before the old one is closed.
 */
import { WebSocket } from 'ws';
import type { Logger } from '../logger.ts';
import { fullJitterDelay } from './backoff.ts';
import type { ConnectionState } from './types.ts';

export interface ConnectionTiming {
  stallMs: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  healthyAfterMs: number;
  maxConnectionMs: number;
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
export class TickerConnection {
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
    private readonly timing: ConnectionTiming,
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
