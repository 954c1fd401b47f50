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
 *   A `serverShutdown` event (docs/sources.md, "Binance") triggers the same replacement at once
 *   (`replace`).
 * - An upgrade answered 429 or 418 is not tried again before its `Retry-After`; a 418 (a ban) is a
 *   refusal.
 * - An upgrade answered with HTTP 451 or 403 (Binance's geo-block: "Service unavailable from a
 *   restricted location") is a refusal: the state is 'refused' with Binance's message, and the
 *   connection keeps retrying, backing off up to `refusedBackoffMaxMs`, so it comes back by itself
 *   when the block is lifted.
 */
import type { IncomingMessage } from 'node:http';
import { WebSocket } from 'ws';
import type { Logger } from '../logger.ts';
import { fullJitterDelay, retryAfterMs } from './backoff.ts';
import { httpErrorDetail, isRefusal } from './refusal.ts';
import type { ConnectionState } from './types.ts';

export interface ConnectionTiming {
  stallMs: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** Ceiling of the backoff while Binance refuses us (451/403): minutes, not seconds. */
  refusedBackoffMaxMs: number;
  healthyAfterMs: number;
  maxConnectionMs: number;
}

/** An error body is a sentence; anything longer is not read further. */
const MAX_ERROR_BODY_BYTES = 4096;

/** Binance's answer to an upgrade it did not accept. */
interface UpgradeAnswer {
  refused: boolean;
  /** `HTTP 451: Service unavailable from a restricted location …` */
  detail: string;
  /** `Retry-After` of a 429 or 418, in ms: no new attempt before it has passed. */
  retryAfterMs: number | null;
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
  /** The HTTP answer to the last upgrade, when it was not a 101. */
  private upgradeAnswer: UpgradeAnswer | null = null;
  /** Reported 'refused' and not open since: retries do not report 'connecting' in between. */
  private refused = false;
  private stallTimer: NodeJS.Timeout | undefined;
  private healthyTimer: NodeJS.Timeout | undefined;
  private rotateTimer: NodeJS.Timeout | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private drained: (() => void) | null = null;
  /** Why the replacement under way was opened, for the state detail once it takes over. */
  private replacing = 'replaced the connection before the 24 h limit';

  constructor(
    private readonly url: string,
    private readonly description: string,
    private readonly timing: ConnectionTiming,
    private readonly events: ConnectionEvents,
    private readonly logger: Logger,
    /** The configured source name, for the logs. */
    private readonly source: string,
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
    this.upgradeAnswer = null;
    if (!this.refused) this.events.state('connecting', `connecting to ${this.description}`);
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
    socket.on('unexpected-response', (_request, response) => this.onUnexpectedResponse(socket, response));
    socket.on('error', (error) => {
      if (socket === this.socket || socket === this.replacement) this.lastError = error.message;
      this.logger.debug({ err: error, source: this.source }, `${this.source} websocket error`);
    });
    socket.on('close', (code, reason) => this.onClose(socket, code, reason.toString()));
    return socket;
  }

  /** Reads the error body (Binance's `{"code":0,"msg":"…"}`), then drops the attempt. */
  private onUnexpectedResponse(socket: WebSocket, response: IncomingMessage): void {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      const status = response.statusCode ?? 0;
      const detail = httpErrorDetail(status, Buffer.concat(chunks).toString('utf8'));
      const header = response.headers['retry-after'];
      const retryAfter =
        status === 429 || status === 418 ? retryAfterMs(typeof header === 'string' ? header : null) : null;
      if (socket === this.socket || socket === this.replacement) {
        // A 418 is Binance's ban of a client that kept asking after 429s (docs/sources.md, "Binance").
        this.upgradeAnswer = {
          refused: isRefusal(status) || status === 418,
          detail,
          retryAfterMs: retryAfter,
        };
      }
      socket.terminate();
    };
    response.on('data', (chunk: Buffer) => {
      if (size >= MAX_ERROR_BODY_BYTES) return;
      chunks.push(chunk);
      size += chunk.length;
    });
    response.on('end', settle);
    response.on('error', settle);
    response.on('close', settle);
  }

  private onOpen(socket: WebSocket): void {
    if (this.stopped) return;
    if (socket === this.replacement) {
      const retiring = this.socket;
      this.socket = socket;
      this.replacement = null;
      if (retiring) closePromptly(retiring, this.replacing);
      this.armOpenTimers();
      this.events.state('open', `${this.description}: ${this.replacing}`);
      return;
    }
    if (socket !== this.socket) return;
    this.refused = false;
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
        { source: this.source, code, error: this.upgradeAnswer?.detail ?? this.lastError },
        `${this.source}: replacement connection failed; keeping the current one and retrying later`,
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
    const notBefore = this.upgradeAnswer?.retryAfterMs ?? 0;
    if (this.upgradeAnswer?.refused) {
      this.scheduleReconnect(this.upgradeAnswer.detail, 'refused', notBefore);
      return;
    }
    let why: string;
    if (this.upgradeAnswer) why = `connection refused with ${this.upgradeAnswer.detail}`;
    else if (this.stalled) why = `stalled (nothing received for ${this.timing.stallMs} ms)`;
    else if (code === 1006 && this.lastError) why = `connection failed: ${this.lastError}`;
    else if (code === 1006) why = 'connection dropped abruptly';
    else why = `closed by the server (code ${code}${reason ? `: ${reason}` : ''})`;
    this.scheduleReconnect(why, 'backoff', notBefore);
  }

  /** `notBefore`: a `Retry-After` the delay may not undercut. */
  private scheduleReconnect(why: string, state: 'backoff' | 'refused' = 'backoff', notBefore = 0): void {
    const ceiling = state === 'refused' ? this.timing.refusedBackoffMaxMs : this.timing.backoffMaxMs;
    const delay = Math.max(notBefore, fullJitterDelay(this.attempt, this.timing.backoffBaseMs, ceiling));
    this.attempt += 1;
    this.refused = state === 'refused';
    this.events.state(state, `${why}; reconnecting in ${delay} ms (attempt ${this.attempt})`);
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
    this.openReplacement('replaced the connection before the 24 h limit');
  }

  /**
   * Opens a new connection now and closes this one once the new one is open (the server asked,
   * with `serverShutdown`). Nothing happens while a replacement is already on its way.
   */
  replace(why: string): void {
    this.openReplacement(`replaced the connection: ${why}`);
  }

  private openReplacement(why: string): void {
    if (this.stopped || this.replacement || !this.socket) return;
    this.replacing = why;
    this.logger.info({ source: this.source }, `${this.source}: opening a new connection (${why})`);
    this.replacement = this.openSocket();
  }

  private clearTimers(): void {
    clearTimeout(this.stallTimer);
    clearTimeout(this.healthyTimer);
    clearTimeout(this.rotateTimer);
  }
}
