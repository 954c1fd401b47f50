/**
 * Binance source adapter: coin prices in USDT from the `<pair>@ticker` streams
 * (https://developers.binance.com/docs/binance-spot-api-docs/web-socket-streams).
 *
 * - Subscribes through the combined-stream URL `/stream?streams=a@ticker/b@ticker`, at most
 *   `streamsPerConnection` streams per connection (Binance allows 1024, but a 1024-stream URL is
 *   ~16 KB; 200 keeps it near 3 KB), so no SUBSCRIBE messages count against the 5 msg/s limit.
 *   Each connection keeps itself alive (`binance-connection.ts`); the source's state is the worst
 *   of theirs.
 * - With a REST base URL, bootstraps prices once (`binance-rest.ts`); a stream tick wins over a
 *   slower REST answer for the same pair.
 * - Refused (HTTP 451 or 403, Binance's geo-block) on a stream upgrade or on REST, the state is
 *   'refused' with Binance's message; the streams keep retrying with backoff capped at
 *   `refusedBackoffMaxMs` (default 5 min), so the source comes back by itself.
 * - On `serverShutdown` the connection that received it is replaced make-before-break: the new
 *   socket opens first, the old one keeps delivering prices until then (docs/sources.md,
 *   "Binance"). The event is not market data and is not counted as a rejected tick.
 * - Validates every field it uses; invalid frames are counted through `listener.rejected` and
 *   never published. A price ×1000 is still a valid number and is passed on: judging jumps needs
 *   the last accepted price, so the collector's jump guard (`priceRejection`) rejects it.
 */
import type { Logger } from '../logger.ts';
import { type ConnectionTiming, TickerConnection } from './binance-connection.ts';
import { bootstrapFromRest } from './binance-rest.ts';
import { parseTickerFrame, type TickerResult } from './binance-ticker.ts';
import { chunk } from './chunk.ts';
import { guardedListener } from './guarded-listener.ts';
import type { ConnectionState, Feed, FeedListener, MarketRequest } from './types.ts';

export interface BinanceFeedOptions {
  /** The configured source name, e.g. 'binance'. */
  name: string;
  /** WebSocket base URL, e.g. 'wss://stream.binance.com:9443' (config `NERKH_BINANCE_WS_URL`). */
  url: string;
  /**
   * REST base URL, e.g. 'https://api.binance.com' (config `NERKH_BINANCE_REST_URL`); when given,
   * quotes are bootstrapped once from `GET /api/v3/ticker/24hr`.
   */
  restUrl?: string;
  /** The coins to follow, each in usdt under its upper-case Binance pair, e.g. `{symbol: 'BTC', currency: 'usdt', market: 'BTCUSDT'}`. */
  markets: readonly MarketRequest[];
  listener: FeedListener;
  logger: Logger;
  /** No message (data or ping) for this long → stalled, reconnect. Default 30 000 (Binance pings every 20 s). */
  stallMs?: number;
  /** First backoff ceiling; doubles per failed attempt up to `backoffMaxMs`. Default 500. */
  backoffBaseMs?: number;
  /** Default 30 000. */
  backoffMaxMs?: number;
  /** Ceiling of the backoff while Binance refuses us (HTTP 451/403). Default 300 000 (5 min). */
  refusedBackoffMaxMs?: number;
  /** Open this long → the connection counts as healthy and the backoff resets. Default 60 000. */
  healthyAfterMs?: number;
  /** Replace each connection after this long, before Binance's 24 h cap. Default 23 h. */
  maxConnectionMs?: number;
  /** Default 200; Binance allows up to 1024. */
  streamsPerConnection?: number;
  /** Per REST bootstrap request. Default 5 000. */
  restTimeoutMs?: number;
}

const PAIR = /^[A-Z0-9]{2,20}$/;
const STATE_RANK: Record<ConnectionState, number> = {
  open: 0,
  connecting: 1,
  stalled: 2,
  backoff: 3,
  refused: 4,
  closed: 5,
};

export class BinanceFeed implements Feed {
  readonly source: string;
  private readonly pairs: ReadonlySet<string>;
  /** Catalog symbol of each followed pair. */
  private readonly symbolOf: ReadonlyMap<string, string>;
  private readonly listener: FeedListener;
  private readonly logger: Logger;
  private readonly timing: ConnectionTiming;
  private readonly connections: TickerConnection[] = [];
  private readonly states: ConnectionState[] = [];
  /** Pairs that already had a stream tick: a slower REST answer must not overwrite them. */
  private readonly streamed = new Set<string>();
  private bootstrapAbort: AbortController | null = null;
  private bootstrapRun: Promise<void> | null = null;
  private started = false;
  private stopping: Promise<void> | null = null;

  constructor(private readonly options: BinanceFeedOptions) {
    if (!/^wss?:\/\/\S+$/.test(options.url))
      throw new Error(`url must be ws:// or wss://, got ${options.url}`);
    if (options.markets.length === 0) throw new Error('BinanceFeed needs at least one market');
    const symbolOf = new Map<string, string>();
    for (const { symbol, currency, market } of options.markets) {
      if (currency !== 'usdt')
        throw new Error(`binance quotes coins in usdt only, not ${currency} (${symbol})`);
      if (!PAIR.test(market))
        throw new Error(`pair "${market}" must be an upper-case Binance symbol like BTCUSDT`);
      if (symbolOf.has(market)) throw new Error(`pair ${market} is requested twice`);
      symbolOf.set(market, symbol);
    }
    this.symbolOf = symbolOf;
    this.pairs = new Set(symbolOf.keys());
    this.source = options.name;
    this.listener = guardedListener(options.listener, options.logger, this.source);
    this.logger = options.logger;
    this.timing = {
      stallMs: options.stallMs ?? 30_000,
      backoffBaseMs: options.backoffBaseMs ?? 500,
      backoffMaxMs: options.backoffMaxMs ?? 30_000,
      refusedBackoffMaxMs: options.refusedBackoffMaxMs ?? 300_000,
      healthyAfterMs: options.healthyAfterMs ?? 60_000,
      maxConnectionMs: options.maxConnectionMs ?? 23 * 3_600_000,
    };
  }

  start(): void {
    if (this.started) throw new Error('BinanceFeed already started');
    this.started = true;
    const base = this.options.url.replace(/\/+$/, '');
    const origin = new URL(base).host;
    const groups = chunk([...this.pairs], this.options.streamsPerConnection ?? 200);
    groups.forEach((group, index) => {
      const streams = group.map((pair) => `${pair.toLowerCase()}@ticker`);
      const description =
        groups.length === 1
          ? `${origin} (${streams.length} streams)`
          : `${origin} connection ${index + 1}/${groups.length} (${streams.length} streams)`;
      this.states.push('connecting');
      const connection: TickerConnection = new TickerConnection(
        `${base}/stream?streams=${streams.join('/')}`,
        description,
        this.timing,
        {
          frame: (text) => this.onFrame(text, connection),
          state: (state, detail) => this.onConnectionState(index, state, detail),
        },
        this.logger,
        this.source,
      );
      this.connections.push(connection);
      connection.start();
    });
    if (this.options.restUrl) {
      const abort = new AbortController();
      this.bootstrapAbort = abort;
      this.bootstrapRun = bootstrapFromRest({
        source: this.source,
        restBaseUrl: this.options.restUrl,
        pairs: this.pairs,
        timeoutMs: this.options.restTimeoutMs ?? 5_000,
        signal: abort.signal,
        logger: this.logger,
        onResult: (result) => this.handle(result, 'rest'),
        onRefused: (detail) => this.onRestRefused(detail),
      });
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

  private onFrame(text: string, connection: TickerConnection): void {
    const result = parseTickerFrame(text, this.pairs);
    if (result.kind === 'shutdown') {
      // Binance asks for a new connection before it closes this one: make-before-break, so the
      // old socket keeps delivering prices until the new one is open.
      connection.replace('the server announced serverShutdown');
      return;
    }
    this.handle(result, 'stream');
  }

  private handle(result: TickerResult, via: 'stream' | 'rest'): void {
    switch (result.kind) {
      case 'quote': {
        const { pair, ask, changePct, tickTime } = result.quote;
        if (via === 'rest' && this.streamed.has(pair)) return;
        if (via === 'stream') this.streamed.add(pair);
        // The parser accepts only followed pairs, so the symbol is always there.
        const symbol = this.symbolOf.get(pair) as string;
        this.listener.quote({ source: this.source, symbol, currency: 'usdt', ask, changePct, tickTime });
        return;
      }
      case 'rejected':
        this.logger.debug(
          { source: this.source, reason: result.reason, via },
          `${this.source}: rejected ticker data`,
        );
        this.listener.rejected(this.source, result.reason);
        return;
      case 'shutdown':
        return;
      case 'control':
        if (result.error)
          this.logger.warn({ source: this.source, error: result.error }, `${this.source}: error reply`);
        return;
    }
  }

  /** The source's state is its worst connection's; the detail names the connection that changed. */
  private onConnectionState(index: number, state: ConnectionState, detail: string): void {
    this.states[index] = state;
    this.report(this.worstState(), detail);
  }

  private worstState(): ConnectionState {
    return this.states.reduce((a, b) => (STATE_RANK[b] > STATE_RANK[a] ? b : a), 'open');
  }

  /**
   * REST refused us: the streams are on their way to the same answer, unless one is already open
   * (then the stream, which carries the prices, has the last word).
   */
  private onRestRefused(detail: string): void {
    if (this.worstState() !== 'open') this.report('refused', detail);
  }

  private report(state: ConnectionState, detail: string): void {
    const healthy = state === 'open' || state === 'connecting' || state === 'closed';
    (healthy ? this.logger.info : this.logger.warn).call(
      this.logger,
      { source: this.source, state },
      `${this.source} ${state}: ${detail}`,
    );
    this.listener.connectionState(this.source, state, detail);
  }
}
