/**
 * A local exchange that speaks the upstream wire formats nerkh consumes, on one port:
 * - Binance WebSocket market streams (https://developers.binance.com/docs/binance-spot-api-docs/web-socket-streams):
 *   combined `/stream?streams=a/b`, raw `/ws/<stream>`, live SUBSCRIBE / UNSUBSCRIBE /
 *   LIST_SUBSCRIPTIONS / SET_PROPERTY / GET_PROPERTY, ping frames every 20 s, disconnect without a
 *   pong within a minute, a 24 h connection lifetime and the 5-incoming-messages-per-second limit;
 * - Binance REST `GET /api/v3/ticker/24hr` (`symbol=` or `symbols=[…]`);
 * - Nobitex `GET /market/stats?srcCurrency=usdt&dstCurrency=rls` (https://apidocs.nobitex.ir, «آمار بازار»);
 * - `GET|POST /_simulator/fault`: switch fault modes at run time for drills.
 * It exists so tests, the demo and operators' drills exercise the real adapters over real sockets.
 */
import http, { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { type RawData, WebSocket, WebSocketServer } from 'ws';
import type { Catalog } from '../domain/catalog.ts';
import type { Logger } from '../logger.ts';
import {
  createPairMarket,
  createTetherMarket,
  formatUnits,
  type PairMarket,
  parseUnits,
  seededRandom,
  setMarketAsk,
  setTetherBestSell,
  stepMarket,
  stepTetherMarket,
  TETHER_INTERVAL_MS,
  type TetherMarket,
} from './market.ts';
import {
  malformedStatsBody,
  malformedTickerFrame,
  restTicker,
  SIMULATOR_FAULTS,
  type SimulatorFault,
  tetherStats,
  tickerEvent,
} from './wire.ts';

export { SIMULATOR_FAULTS, type SimulatorFault };
export type FaultTarget = 'binance' | 'nobitex' | 'all';
export const FAULT_TARGETS: readonly FaultTarget[] = ['binance', 'nobitex', 'all'];
type Side = 'binance' | 'nobitex';

export interface SimulatorOptions {
  /** Every entry with a pair gets a random-walk price. */
  catalog: Catalog;
  /** Default 0 (an ephemeral port). */
  port?: number;
  /** Default '127.0.0.1'. */
  host?: string;
  /** Seed of the deterministic PRNG; default: random. */
  seed?: number;
  /** Binance sends a ping frame every 20 s. */
  pingIntervalMs?: number;
  /** Binance disconnects a client that has not answered a ping within a minute. */
  pongTimeoutMs?: number;
  /** Binance closes every connection at the 24 h mark. */
  maxConnectionMs?: number;
  /** Default true: the random walk runs on timers; tests set false and drive `tick`. */
  autoTick?: boolean;
  /** Nobitex usdt-rls bestSell at start, in rial. */
  usdtRialStart?: number;
  /** Binance allows 5 incoming messages (ping, pong, JSON control) per second per connection. */
  maxIncomingPerSecond?: number;
  /** Seconds sent in `Retry-After` under the `http-429` fault (default 2). */
  retryAfterSeconds?: number;
  /** Connection and fault events at info; silent when absent. */
  logger?: Logger;
}

export interface SetFaultOptions {
  /** Revert to 'none' after this long (a brief outage); default: until changed. */
  durationMs?: number;
}

/** Binance: "A single connection can listen to a maximum of 1024 streams." */
const MAX_STREAMS_PER_CONNECTION = 1024;
const AUTO_TICK_RESOLUTION_MS = 250;
const DEFAULT_USDT_RIAL = 1_052_990;
const TETHER_MARKET = 'usdt-rls';

interface Session {
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

interface UpstreamAnswer {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

interface HeldRequest {
  side: Side;
  res: ServerResponse;
  answer: () => UpstreamAnswer;
}

function isFault(value: unknown): value is SimulatorFault {
  return typeof value === 'string' && (SIMULATOR_FAULTS as readonly string[]).includes(value);
}

function isTarget(value: unknown): value is FaultTarget {
  return typeof value === 'string' && (FAULT_TARGETS as readonly string[]).includes(value);
}

function sendJson(res: ServerResponse, answer: UpstreamAnswer): void {
  res.writeHead(answer.status, {
    'content-type': 'application/json;charset=UTF-8',
    'content-length': Buffer.byteLength(answer.body),
    ...answer.headers,
  });
  res.end(answer.body);
}

function json(status: number, body: unknown, headers?: Record<string, string>): UpstreamAnswer {
  return { status, body: JSON.stringify(body), ...(headers ? { headers } : {}) };
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

export class ExchangeSimulator {
  private readonly server: http.Server;
  private readonly wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  private readonly sessions = new Set<Session>();
  private readonly held = new Set<HeldRequest>();
  private readonly markets = new Map<string, PairMarket>();
  private readonly tether: TetherMarket;
  private readonly random: () => number;
  private readonly faults: Record<Side, SimulatorFault> = { binance: 'none', nobitex: 'none' };
  private readonly faultTimers: Partial<Record<Side, NodeJS.Timeout>> = {};
  private readonly pingIntervalMs: number;
  private readonly pongTimeoutMs: number;
  private readonly maxConnectionMs: number;
  private readonly maxIncomingPerSecond: number;
  private readonly retryAfterSeconds: number;
  private readonly logger: Logger | undefined;
  private autoTickTimer: NodeJS.Timeout | undefined;
  private malformedVariant = 0;

  static async start(options: SimulatorOptions): Promise<ExchangeSimulator> {
    const simulator = new ExchangeSimulator(options);
    await simulator.listen(options.port ?? 0, options.host ?? '127.0.0.1');
    if (options.autoTick ?? true) simulator.startAutoTick();
    return simulator;
  }

  private constructor(options: SimulatorOptions) {
    this.random = seededRandom(options.seed ?? Math.floor(Math.random() * 2 ** 32));
    this.pingIntervalMs = options.pingIntervalMs ?? 20_000;
    this.pongTimeoutMs = options.pongTimeoutMs ?? 60_000;
    this.maxConnectionMs = options.maxConnectionMs ?? 86_400_000;
    this.maxIncomingPerSecond = options.maxIncomingPerSecond ?? 5;
    this.retryAfterSeconds = options.retryAfterSeconds ?? 2;
    this.logger = options.logger;
    const now = Date.now();
    for (const entry of options.catalog) {
      if (entry.pair === null) continue;
      this.markets.set(entry.pair, createPairMarket(entry.symbol, entry.pair, this.random, now));
    }
    this.tether = createTetherMarket(options.usdtRialStart ?? DEFAULT_USDT_RIAL, this.random, now);
    this.server = http.createServer((req, res) => this.onRequest(req, res));
    this.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) =>
      this.onUpgrade(req, socket, head),
    );
  }

  private listen(port: number, host: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  private get origin(): string {
    const { address, family } = this.server.address() as AddressInfo;
    return family === 'IPv6' ? `[${address}]:${this.port}` : `${address}:${this.port}`;
  }

  /** Binance WebSocket base: `/stream?streams=…` and `/ws/<stream>` hang off it. */
  get wsBaseUrl(): string {
    return `ws://${this.origin}`;
  }

  /** Binance REST base: `/api/v3/ticker/24hr`. */
  get restBaseUrl(): string {
    return `http://${this.origin}`;
  }

  /** Nobitex base: `/market/stats`. */
  get nobitexBaseUrl(): string {
    return `http://${this.origin}`;
  }

  /** Open WebSocket connections. */
  get connectionCount(): number {
    return this.sessions.size;
  }

  /** Current fault of each side. */
  faultState(): Record<Side, SimulatorFault> {
    return { ...this.faults };
  }

  setFault(fault: SimulatorFault, target: FaultTarget = 'all', options: SetFaultOptions = {}): void {
    if (!isFault(fault))
      throw new Error(`unknown fault "${String(fault)}" (one of ${SIMULATOR_FAULTS.join(', ')})`);
    if (!isTarget(target))
      throw new Error(`unknown target "${String(target)}" (one of ${FAULT_TARGETS.join(', ')})`);
    const { durationMs } = options;
    if (durationMs !== undefined && !(Number.isInteger(durationMs) && durationMs > 0)) {
      throw new Error('durationMs must be a positive integer');
    }
    const sides: Side[] = target === 'all' ? ['binance', 'nobitex'] : [target];
    for (const side of sides) {
      clearTimeout(this.faultTimers[side]);
      delete this.faultTimers[side];
      this.faults[side] = fault;
      if (durationMs !== undefined) {
        this.faultTimers[side] = setTimeout(() => {
          delete this.faultTimers[side];
          if (this.faults[side] === fault) this.applyFault(side, 'none');
        }, durationMs);
      }
      this.applyFault(side, fault);
    }
  }

  private applyFault(side: Side, fault: SimulatorFault): void {
    this.faults[side] = fault;
    this.logger?.info({ side, fault }, 'simulator fault set');
    if (side === 'binance' && fault === 'drop') {
      for (const session of this.sessions) session.ws.terminate();
    }
    if (side === 'binance' && fault === 'stall') {
      // A stalled server sends nothing, pings included, so it cannot hold clients to pong deadlines.
      for (const session of this.sessions) this.clearPongDeadline(session);
    }
    for (const request of this.held) {
      if (this.faults[request.side] !== 'stall') {
        this.held.delete(request);
        if (!request.res.destroyed) sendJson(request.res, request.answer());
      }
    }
  }

  /** Current best ask of a pair as sent on the wire when no price fault is set, e.g. '97123.45000000'. */
  askOf(pair: string): string {
    return formatUnits(this.marketOf(pair).ask);
  }

  /** Current Nobitex usdt-rls bestSell in rial, as sent on the wire when no price fault is set. */
  usdtBestSellRial(): string {
    return String(this.tether.bestSell);
  }

  /** Sets the Nobitex bestSell (a whole number of rial, as a string). */
  setUsdtBestSellRial(rial: string): void {
    if (!/^[1-9]\d*$/.test(rial))
      throw new Error(`bestSell must be a positive whole number of rial, got "${rial}"`);
    setTetherBestSell(this.tether, Number(rial), this.random);
  }

  /**
   * Sends one ticker event for the pair now: with `ask` the best ask becomes that price (a moving
   * tick if it differs), without it the ask stays (an unchanged tick). Returns the event time E.
   */
  tick(pair: string, ask?: string): number {
    const market = this.marketOf(pair);
    if (ask === undefined) {
      setMarketAsk(market, market.ask, this.random);
    } else {
      const units = parseUnits(ask);
      if (units === null || units <= 0n)
        throw new Error(`ask must be a positive decimal with ≤ 8 decimals, got "${ask}"`);
      setMarketAsk(market, units, this.random);
    }
    const eventTime = Date.now();
    this.publish(market, eventTime);
    return eventTime;
  }

  async stop(): Promise<void> {
    clearInterval(this.autoTickTimer);
    for (const side of ['binance', 'nobitex'] as const) clearTimeout(this.faultTimers[side]);
    for (const session of this.sessions) session.ws.terminate();
    for (const request of this.held) request.res.destroy();
    this.held.clear();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private marketOf(pair: string): PairMarket {
    const market = this.markets.get(pair);
    if (!market) throw new Error(`pair ${pair} is not in the simulator's catalog`);
    return market;
  }

  private startAutoTick(): void {
    this.autoTickTimer = setInterval(() => {
      const now = Date.now();
      for (const market of this.markets.values()) {
        if (now < market.nextDueAt) continue;
        market.nextDueAt = now + market.intervalMs;
        stepMarket(market, this.random);
        this.publish(market, now);
      }
      if (now >= this.tether.nextDueAt) {
        this.tether.nextDueAt = now + TETHER_INTERVAL_MS;
        stepTetherMarket(this.tether, this.random);
      }
    }, AUTO_TICK_RESOLUTION_MS);
  }

  private publish(market: PairMarket, eventTime: number): void {
    const fault = this.faults.binance;
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

  // ---- Binance WebSocket -------------------------------------------------------------------

  private onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
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
    const fault = this.faults.binance;
    if (fault === 'http-429') {
      rejectUpgrade(
        socket,
        429,
        { code: -1003, msg: 'Too many requests.' },
        { 'Retry-After': String(this.retryAfterSeconds) },
      );
      return;
    }
    if (fault === 'http-5xx') {
      rejectUpgrade(socket, 503, { code: -1001, msg: 'Service unavailable.' });
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.onConnection(ws, streams, combined));
  }

  private onConnection(ws: WebSocket, streams: string[], combined: boolean): void {
    ws.on('error', (error) => this.logger?.debug({ err: error }, 'simulator websocket error'));
    if (this.faults.binance === 'drop') {
      ws.terminate();
      return;
    }
    const session: Session = {
      ws,
      streams: new Set(streams),
      combined,
      pingTimer: setInterval(() => this.sendPing(session), this.pingIntervalMs),
      lifetimeTimer: setTimeout(() => ws.close(1000, 'connection lifetime exceeded'), this.maxConnectionMs),
      pongDeadline: undefined,
      unansweredPings: new Set(),
      incomingTimes: [],
    };
    this.sessions.add(session);
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
      this.logger?.info({ open: this.sessions.size }, 'simulator client disconnected');
    });
  }

  private sendPing(session: Session): void {
    if (this.faults.binance === 'stall' || session.ws.readyState !== WebSocket.OPEN) return;
    const payload = String(Date.now());
    session.unansweredPings.add(payload);
    session.ws.ping(payload);
    session.pongDeadline ??= setTimeout(() => {
      this.logger?.info('simulator: no pong within the timeout, disconnecting client');
      session.ws.terminate();
    }, this.pongTimeoutMs);
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
    if (session.incomingTimes.length <= this.maxIncomingPerSecond) return false;
    session.ws.close(1008, 'Too many messages');
    return true;
  }

  private onControlMessage(session: Session, data: RawData): void {
    if (this.faults.binance === 'stall') return;
    session.ws.send(answerControl(session, data.toString()));
  }

  // ---- HTTP: Binance REST, Nobitex, fault control -------------------------------------------

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://simulator');
    switch (url.pathname) {
      case '/_simulator/fault':
        this.onFaultControl(req, res);
        return;
      case '/api/v3/ticker/24hr':
        this.serveUpstream('binance', req, res, () => this.binanceTickers(url.searchParams));
        return;
      case '/market/stats':
        this.serveUpstream('nobitex', req, res, () => this.nobitexStats(url.searchParams));
        return;
      default:
        sendJson(res, json(404, { error: 'not found' }));
    }
  }

  private serveUpstream(
    side: Side,
    req: IncomingMessage,
    res: ServerResponse,
    answer: () => UpstreamAnswer,
  ): void {
    if (req.method !== 'GET') {
      sendJson(res, json(405, { error: 'method not allowed' }, { allow: 'GET' }));
      return;
    }
    switch (this.faults[side]) {
      case 'drop':
        req.socket.destroy();
        return;
      case 'stall':
        this.held.add({ side, res, answer });
        return;
      case 'http-429': {
        const retryAfter = { 'retry-after': String(this.retryAfterSeconds) };
        sendJson(
          res,
          side === 'binance'
            ? json(
                429,
                { code: -1003, msg: 'Too many requests; please use the websocket for live updates.' },
                retryAfter,
              )
            : json(
                429,
                { status: 'failed', code: 'TooManyRequests', message: 'Too many requests' },
                retryAfter,
              ),
        );
        return;
      }
      case 'http-5xx':
        sendJson(
          res,
          side === 'binance'
            ? json(503, {
                code: -1001,
                msg: 'Internal error; unable to process your request. Please try again.',
              })
            : json(503, { status: 'failed', message: 'Service Unavailable' }),
        );
        return;
      default:
        sendJson(res, answer());
    }
  }

  private binanceTickers(params: URLSearchParams): UpstreamAnswer {
    const fault = this.faults.binance;
    const now = Date.now();
    const symbol = params.get('symbol');
    const symbols = params.get('symbols');
    if (symbol !== null && symbols !== null) {
      return json(400, { code: -1128, msg: 'Combination of optional parameters invalid.' });
    }
    let markets: PairMarket[];
    let single = false;
    if (symbol !== null) {
      const market = this.markets.get(symbol);
      if (!market) return json(400, { code: -1121, msg: 'Invalid symbol.' });
      markets = [market];
      single = true;
    } else if (symbols !== null) {
      let names: unknown;
      try {
        names = JSON.parse(symbols);
      } catch {
        names = null;
      }
      if (
        !Array.isArray(names) ||
        !names.every((n) => typeof n === 'string' && /^[A-Z0-9\-_.]{1,20}$/.test(n))
      ) {
        return json(400, { code: -1100, msg: "Illegal characters found in parameter 'symbols'." });
      }
      const found = names.map((name) => this.markets.get(name));
      if (found.some((market) => market === undefined))
        return json(400, { code: -1121, msg: 'Invalid symbol.' });
      markets = found as PairMarket[];
    } else {
      markets = [...this.markets.values()];
    }
    if (fault === 'malformed') {
      const whole = JSON.stringify(markets.map((market) => restTicker(market, now, 'none')));
      return { status: 200, body: whole.slice(0, Math.floor(whole.length / 2)) };
    }
    const tickers = markets.map((market) => restTicker(market, now, fault));
    return json(200, single ? tickers[0] : tickers);
  }

  /** `srcCurrency`/`dstCurrency` are optional comma lists; absent means every market. */
  private nobitexStats(params: URLSearchParams): UpstreamAnswer {
    if (this.faults.nobitex === 'malformed') {
      return { status: 200, body: malformedStatsBody(this.tether, this.malformedVariant++) };
    }
    const wanted = (name: string, value: string) => {
      const list = params.get(name);
      return list === null || list.split(',').some((item) => item.trim().toLowerCase() === value);
    };
    const stats: Record<string, unknown> = {};
    if (wanted('srcCurrency', 'usdt') && wanted('dstCurrency', 'rls')) {
      stats[TETHER_MARKET] = tetherStats(this.tether, this.faults.nobitex);
    }
    return json(200, { status: 'ok', stats });
  }

  private onFaultControl(req: IncomingMessage, res: ServerResponse): void {
    if (req.method === 'GET') {
      sendJson(res, json(200, this.faultState()));
      return;
    }
    if (req.method !== 'POST') {
      sendJson(res, json(405, { error: 'use GET or POST' }, { allow: 'GET, POST' }));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > 4096) {
        sendJson(res, json(413, { error: 'body too large' }));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (res.headersSent) return;
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        sendJson(
          res,
          json(400, { error: 'body must be JSON: {"fault": "...", "target": "binance|nobitex|all"}' }),
        );
        return;
      }
      const { fault, target = 'all', durationMs } = (body ?? {}) as Record<string, unknown>;
      if (!isFault(fault)) {
        sendJson(res, json(400, { error: `fault must be one of ${SIMULATOR_FAULTS.join(', ')}` }));
        return;
      }
      if (!isTarget(target)) {
        sendJson(res, json(400, { error: `target must be one of ${FAULT_TARGETS.join(', ')}` }));
        return;
      }
      if (durationMs !== undefined && !(Number.isInteger(durationMs) && (durationMs as number) > 0)) {
        sendJson(res, json(400, { error: 'durationMs must be a positive integer' }));
        return;
      }
      this.setFault(fault, target, durationMs === undefined ? {} : { durationMs: durationMs as number });
      sendJson(res, json(200, this.faultState()));
    });
  }
}

/** Answers a WebSocket upgrade with a plain HTTP error, as Binance does for bad paths and limits. */
function rejectUpgrade(
  socket: Duplex,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
    'Connection: close',
    'Content-Type: application/json;charset=UTF-8',
    `Content-Length: ${Buffer.byteLength(text)}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
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
