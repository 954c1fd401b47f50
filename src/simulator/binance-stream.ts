/**
 * Binance WebSocket market streams (https://developers.binance.com/docs/binance-spot-api-docs/web-socket-streams):
 * combined `/stream?streams=a/b`, raw `/ws/<stream>`, live SUBSCRIBE / UNSUBSCRIBE /
 * LIST_SUBSCRIPTIONS / SET_PROPERTY / GET_PROPERTY, ping frames every 20 s, disconnect without a
 * pong within a minute, a 24 h connection lifetime, the 5-incoming-messages-per-second limit, the
 * `serverShutdown` event before a server closes its connections, and an empty-bodied HTTP 451 to
 * an upgrade from a refused location (docs/sources.md, "Binance").
 */
import { type IncomingMessage, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { type RawData, WebSocket, WebSocketServer } from 'ws';
import type { Logger } from '../logger.ts';
import type { Faults } from './faults.ts';
import type { PairMarket } from './market.ts';
import { malformedTickerFrame, tickerEvent } from './wire.ts';

interface BinanceStreamOptions {
  faults: Faults;
  pingIntervalMs: number;
  pongTimeoutMs: number;
  maxConnectionMs: number;
  maxIncomingPerSecond: number;
  /** Seconds sent in `Retry-After` when an upgrade is refused under `http-429`. */
  retryAfterSeconds: number;
  logger: Logger | undefined;
}

/** Binance: "A single connection can listen to a maximum of 1024 streams." */
const MAX_STREAMS_PER_CONNECTION = 1024;

/** When a stream connection opened or closed, as the server saw it. */
export interface ConnectionEvent {
  at: number;
  /** Numbered from 1 in the order connections opened. */
  connection: number;
  event: 'open' | 'close';
}

/** The connection log keeps this many events; older ones are dropped. */
const CONNECTION_LOG_SIZE = 1000;

interface Session {
  readonly id: number;
  readonly ws: WebSocket;
  readonly streams: Set<string>;
  combined: boolean;
  readonly pingTimer: NodeJS.Timeout;
  readonly lifetimeTimer: NodeJS.Timeout;
  pongDeadline: NodeJS.Timeout | undefined;
  /** Payloads of pings not yet answered; a pong must echo one of them. */
  readonly unansweredPings: Set<string>;
  readonly incomingTimes: number[];
}

/** Binance's error reply to a stream-connection request: `{"error":{code,msg},"id":…}`. */
function streamError(code: number, msg: string, id: unknown): string {
  return JSON.stringify({ error: { code, msg }, id: id ?? null });
}

/** Binance accepts ids that are 64-bit integers, alphanumeric strings up to 36 chars, or null. */
function validRequestId(id: unknown): boolean {
  if (id === null) return true;
  if (typeof id === 'number') return Number.isInteger(id);
  return typeof id === 'string' && /^[A-Za-z0-9]{1,36}$/.test(id);
}

export class BinanceStream {
  private readonly wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  private readonly sessions = new Set<Session>();
  private readonly faults: Faults;
  private readonly logger: Logger | undefined;
  /** Which corrupt frame the `malformed` fault sends next. */
  private malformedVariant = 0;
  private connectionsOpened = 0;
  private readonly log: ConnectionEvent[] = [];

  constructor(private readonly options: BinanceStreamOptions) {
    this.faults = options.faults;
    this.logger = options.logger;
    this.faults.onChange((exchange, fault) => {
      if (exchange !== 'binance') return;
      // A geo-block also ends the streams that are open, so clients meet the 451 when they reconnect.
      if (fault === 'drop' || fault === 'geo-block') {
        for (const session of this.sessions) session.ws.terminate();
      }
      if (fault === 'stall') {
        // A stalled server sends nothing, pings included, so it cannot hold clients to pong deadlines.
        for (const session of this.sessions) this.clearPongDeadline(session);
      }
    });
  }

  /** Open WebSocket connections. */
  get connectionCount(): number {
    return this.sessions.size;
  }

  /** The last opens and closes of stream connections, oldest first. */
  connectionLog(): ConnectionEvent[] {
    return [...this.log];
  }

  private record(connection: number, event: ConnectionEvent['event']): void {
    this.log.push({ at: Date.now(), connection, event });
    if (this.log.length > CONNECTION_LOG_SIZE) this.log.shift();
  }

  /** Sends the pair's ticker event to every connection subscribed to its stream. */
  publish(market: PairMarket, eventTime: number): void {
    const fault = this.faults.of('binance');
    if (fault === 'stall' || fault === 'drop') return;
    let combinedFrame: string | undefined;
    let rawFrame: string | undefined;
    for (const session of this.sessions) {
      if (!session.streams.has(market.stream) || session.ws.readyState !== WebSocket.OPEN) continue;
      if (fault === 'malformed') {
        session.ws.send(malformedTickerFrame(market, eventTime, session.combined, this.malformedVariant++));
        continue;
      }
      if (session.combined) {
        combinedFrame ??= JSON.stringify({
          stream: market.stream,
          data: tickerEvent(market, eventTime, fault),
        });
        session.ws.send(combinedFrame);
      } else {
        rawFrame ??= JSON.stringify(tickerEvent(market, eventTime, fault));
        session.ws.send(rawFrame);
      }
    }
  }

  /**
   * Binance's `serverShutdown`: every open connection gets the event (raw or combined, as it
   * streams), and is closed `closeAfterMs` later; connections opened since are not affected.
   * Returns how many connections were told.
   */
  announceShutdown(closeAfterMs: number): number {
    const eventTime = Date.now();
    const event = { e: 'serverShutdown', E: eventTime };
    const doomed = [...this.sessions].filter((session) => session.ws.readyState === WebSocket.OPEN);
    for (const session of doomed) {
      session.ws.send(JSON.stringify(session.combined ? { stream: '!serverShutdown', data: event } : event));
      const timer = setTimeout(() => session.ws.close(1001, 'server shutdown'), closeAfterMs);
      session.ws.once('close', () => clearTimeout(timer));
    }
    this.logger?.info({ connections: doomed.length, closeAfterMs }, 'simulator: serverShutdown sent');
    return doomed.length;
  }

  /** The HTTP server's `upgrade` event. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://simulator');
    let streams: string[];
    let combined: boolean;
    if (url.pathname === '/stream' || url.pathname === '/stream/') {
      combined = true;
      streams = (url.searchParams.get('streams') ?? '').split('/').filter((name) => name !== '');
    } else if (url.pathname === '/ws' || url.pathname.startsWith('/ws/')) {
      combined = false;
      streams = url.pathname
        .slice('/ws'.length)
        .split('/')
        .filter((name) => name !== '')
        .map((name) => decodeURIComponent(name));
    } else {
      rejectUpgrade(socket, 404, { code: -1, msg: 'Not found.' });
      return;
    }
    if (streams.length > MAX_STREAMS_PER_CONNECTION) {
      rejectUpgrade(socket, 400, {
        code: -1,
        msg: `At most ${MAX_STREAMS_PER_CONNECTION} streams per connection.`,
      });
      return;
    }
    const fault = this.faults.of('binance');
    if (fault === 'http-429') {
      rejectUpgrade(
        socket,
        429,
        { code: -1003, msg: 'Too many requests.' },
        { 'Retry-After': String(this.options.retryAfterSeconds) },
      );
      return;
    }
    if (fault === 'http-5xx') {
      rejectUpgrade(socket, 503, { code: -1001, msg: 'Service unavailable.' });
      return;
    }
    if (fault === 'geo-block') {
      // Binance's REST 451 carries its message; the upgrade's 451 has an empty body.
      rejectUpgrade(socket, 451, null);
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.onConnection(ws, streams, combined));
  }

  /** Drops every connection; resolves when the WebSocket server has closed. */
  async stop(): Promise<void> {
    for (const session of this.sessions) session.ws.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private onConnection(ws: WebSocket, streams: string[], combined: boolean): void {
    ws.on('error', (error) => this.logger?.debug({ err: error }, 'simulator websocket error'));
    if (this.faults.of('binance') === 'drop') {
      ws.terminate();
      return;
    }
    this.connectionsOpened += 1;
    const session: Session = {
      id: this.connectionsOpened,
      ws,
      streams: new Set(streams),
      combined,
      pingTimer: setInterval(() => this.sendPing(session), this.options.pingIntervalMs),
      lifetimeTimer: setTimeout(
        () => ws.close(1000, 'connection lifetime exceeded'),
        this.options.maxConnectionMs,
      ),
      pongDeadline: undefined,
      unansweredPings: new Set(),
      incomingTimes: [],
    };
    this.sessions.add(session);
    this.record(session.id, 'open');
    this.logger?.info(
      { streams: streams.length, combined, open: this.sessions.size },
      'simulator client connected',
    );
    ws.on('message', (data, isBinary) => {
      if (this.overIncomingLimit(session)) return;
      if (!isBinary) this.onControlMessage(session, data);
    });
    ws.on('ping', () => this.overIncomingLimit(session));
    ws.on('pong', (payload) => {
      if (this.overIncomingLimit(session)) return;
      if (session.unansweredPings.has(payload.toString())) this.clearPongDeadline(session);
    });
    ws.on('close', () => {
      clearInterval(session.pingTimer);
      clearTimeout(session.lifetimeTimer);
      this.clearPongDeadline(session);
      this.sessions.delete(session);
      this.record(session.id, 'close');
      this.logger?.info({ open: this.sessions.size }, 'simulator client disconnected');
    });
  }

  private sendPing(session: Session): void {
    if (this.faults.of('binance') === 'stall' || session.ws.readyState !== WebSocket.OPEN) return;
    const payload = String(Date.now());
    session.unansweredPings.add(payload);
    session.ws.ping(payload);
    session.pongDeadline ??= setTimeout(() => {
      this.logger?.info('simulator: no pong within the timeout, disconnecting client');
      session.ws.terminate();
    }, this.options.pongTimeoutMs);
  }

  private clearPongDeadline(session: Session): void {
    clearTimeout(session.pongDeadline);
    session.pongDeadline = undefined;
    session.unansweredPings.clear();
  }

  /** Binance counts pings, pongs and JSON control messages; a connection above the limit is dropped. */
  private overIncomingLimit(session: Session): boolean {
    const now = Date.now();
    session.incomingTimes.push(now);
    while ((session.incomingTimes[0] ?? now) <= now - 1000) session.incomingTimes.shift();
    if (session.incomingTimes.length <= this.options.maxIncomingPerSecond) return false;
    session.ws.close(1008, 'Too many messages');
    return true;
  }

  private onControlMessage(session: Session, data: RawData): void {
    if (this.faults.of('binance') === 'stall') return;
    session.ws.send(answerControl(session, data.toString()));
  }
}

/** Answers a WebSocket upgrade with a plain HTTP error, as Binance does for bad paths and limits. */
function rejectUpgrade(
  socket: Duplex,
  status: number,
  /** Null: an empty body. */
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = body === null ? '' : JSON.stringify(body);
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
    'Connection: close',
    ...(body === null ? [] : ['Content-Type: application/json;charset=UTF-8']),
    `Content-Length: ${Buffer.byteLength(text)}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  // After 'upgrade', node:http leaves the socket's errors to the listener (no 'error' handler of
  // its own): a client that resets the connection on reading the refusal would otherwise be an
  // uncaught exception that ends the simulator, and the demo or test running it.
  socket.on('error', () => socket.destroy());
  socket.end(`${lines.join('\r\n')}\r\n\r\n${text}`);
}

/** The reply to a live subscription request (Binance "Live Subscribing/Unsubscribing to streams"). */
function answerControl(session: Session, text: string): string {
  let request: unknown;
  try {
    request = JSON.parse(text);
  } catch {
    return streamError(3, 'Invalid JSON: expected value at line 1 column 1', null);
  }
  if (typeof request !== 'object' || request === null || Array.isArray(request)) {
    return streamError(2, 'Invalid request: expected an object', null);
  }
  const { method, params, id } = request as Record<string, unknown>;
  if (!validRequestId(id))
    return streamError(2, 'Invalid request: request ID must be an unsigned integer', null);
  if (typeof method !== 'string') return streamError(2, 'Invalid request: missing field `method`', id);
  const streamNames = Array.isArray(params) && params.every((p) => typeof p === 'string') ? params : null;
  const [propertyName, propertyValue] = Array.isArray(params) ? params : [];
  switch (method) {
    case 'SUBSCRIBE':
      if (!streamNames) return streamError(2, 'Invalid request: params must be stream names', id);
      if (new Set([...session.streams, ...streamNames]).size > MAX_STREAMS_PER_CONNECTION) {
        return streamError(2, `Invalid request: at most ${MAX_STREAMS_PER_CONNECTION} streams`, id);
      }
      for (const name of streamNames) session.streams.add(name);
      return JSON.stringify({ result: null, id });
    case 'UNSUBSCRIBE':
      if (!streamNames) return streamError(2, 'Invalid request: params must be stream names', id);
      for (const name of streamNames) session.streams.delete(name);
      return JSON.stringify({ result: null, id });
    case 'LIST_SUBSCRIPTIONS':
      return JSON.stringify({ result: [...session.streams], id });
    case 'SET_PROPERTY':
    case 'GET_PROPERTY':
      if (typeof propertyName !== 'string') {
        return streamError(2, 'Invalid request: property name must be a string', id);
      }
      if (propertyName !== 'combined') return streamError(0, 'Unknown property', id);
      if (method === 'GET_PROPERTY') return JSON.stringify({ result: session.combined, id });
      if (typeof propertyValue !== 'boolean')
        return streamError(1, 'Invalid value type: expected Boolean', id);
      session.combined = propertyValue;
      return JSON.stringify({ result: null, id });
    default:
      return streamError(
        2,
        `Invalid request: unknown variant \`${method}\`, expected one of \`SUBSCRIBE\`, \`UNSUBSCRIBE\`, \`LIST_SUBSCRIPTIONS\`, \`SET_PROPERTY\`, \`GET_PROPERTY\``,
        id,
      );
  }
}
