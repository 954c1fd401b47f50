/**
 * A local exchange that speaks the upstream wire formats nerkh consumes, on one port: the Binance
 * stream (`binance-stream.ts`), Binance REST (`binance-rest.ts`), Nobitex (`nobitex.ts`), Wallex
 * (`wallex.ts`), a made-up exchange's JSON document for the json-http kind (`panel.ts`), Ramzinex,
 * Bitpin, Tabdeal and Aban Tether as the json-http presets read them (`iran-exchanges.ts`) and the
 * control surfaces (`fault-control.ts`, `condition-control.ts`), over one simulated market (`market.ts`): every
 * exchange quotes the same coins, toman = usdt × tether's toman ask and rial = toman × 10
 * (`quoted-markets.ts`), so tests can predict what nerkh publishes from any of them.
 * It exists so tests, the demo and operators' drills exercise the real adapters over real sockets.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Catalog } from '../domain/catalog.ts';
import type { Logger } from '../logger.ts';
import { urlHost } from '../net/url-host.ts';
import { binanceRest } from './binance-rest.ts';
import { BinanceStream, type ConnectionEvent } from './binance-stream.ts';
import { CONDITION_CONTROL_PATH, serveConditionControl } from './condition-control.ts';
import { FAULT_CONTROL_PATH, serveFaultControl } from './fault-control.ts';
import {
  type FaultState,
  Faults,
  type FaultTarget,
  type SetFaultOptions,
  type SimulatorFault,
} from './faults.ts';
import { type HttpEndpoint, HttpEndpoints, json, sendJson } from './http-endpoints.ts';
import { abantether, bitpin, ramzinex, tabdeal } from './iran-exchanges.ts';
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
import { type NobitexCondition, type NobitexEndpoint, nobitex } from './nobitex.ts';
import { PANEL_PATH, panel } from './panel.ts';
import { formatPrice, type ListedCoin, quoteIn, tetherInToman } from './quoted-markets.ts';
import { type WallexEndpoints, type WallexMarketsCondition, wallex } from './wallex.ts';

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

const AUTO_TICK_RESOLUTION_MS = 250;
const DEFAULT_USDT_RIAL = 1_052_990;

export class ExchangeSimulator {
  private readonly server: http.Server;
  private readonly markets = new Map<string, PairMarket>();
  private readonly coins: ListedCoin[] = [];
  private readonly tether: TetherMarket;
  private readonly random: () => number;
  private readonly faults: Faults;
  private readonly stream: BinanceStream;
  private readonly http: HttpEndpoints;
  private readonly endpoints: ReadonlyMap<string, HttpEndpoint>;
  private readonly nobitex: NobitexEndpoint;
  private readonly wallex: WallexEndpoints;
  private autoTickTimer: NodeJS.Timeout | undefined;

  static async start(options: SimulatorOptions): Promise<ExchangeSimulator> {
    const simulator = new ExchangeSimulator(options);
    await simulator.listen(options.port ?? 0, options.host ?? '127.0.0.1');
    if (options.autoTick ?? true) simulator.startAutoTick();
    return simulator;
  }

  private constructor(options: SimulatorOptions) {
    this.random = seededRandom(options.seed ?? Math.floor(Math.random() * 2 ** 32));
    const retryAfterSeconds = options.retryAfterSeconds ?? 2;
    const now = Date.now();
    let tetherNameFa = 'تتر';
    for (const entry of options.catalog) {
      if (entry.pair === null) {
        tetherNameFa = entry.name_fa;
        continue;
      }
      const market = createPairMarket(entry.symbol, entry.pair, this.random, now);
      this.markets.set(entry.pair, market);
      this.coins.push({ symbol: entry.symbol, nameFa: entry.name_fa, market });
    }
    this.tether = createTetherMarket(options.usdtRialStart ?? DEFAULT_USDT_RIAL, this.random, now);
    this.faults = new Faults(options.logger);
    this.stream = new BinanceStream({
      faults: this.faults,
      pingIntervalMs: options.pingIntervalMs ?? 20_000,
      pongTimeoutMs: options.pongTimeoutMs ?? 60_000,
      maxConnectionMs: options.maxConnectionMs ?? 86_400_000,
      maxIncomingPerSecond: options.maxIncomingPerSecond ?? 5,
      retryAfterSeconds,
      logger: options.logger,
    });
    this.http = new HttpEndpoints(this.faults, retryAfterSeconds);
    this.nobitex = nobitex(this.coins, this.tether);
    this.wallex = wallex(this.coins, this.tether, tetherNameFa);
    this.endpoints = new Map(
      [
        binanceRest(this.markets),
        this.nobitex,
        this.wallex.markets,
        this.wallex.depth,
        panel(this.coins, this.tether),
        ramzinex(this.coins, this.tether),
        bitpin(this.coins, this.tether),
        tabdeal(this.coins, this.tether),
        abantether(this.coins, this.tether),
      ].map((endpoint) => [endpoint.path, endpoint]),
    );
    this.server = http.createServer((req, res) => this.onRequest(req, res));
    this.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) =>
      this.stream.handleUpgrade(req, socket, head),
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
    return `${urlHost((this.server.address() as AddressInfo).address)}:${this.port}`;
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

  /** Wallex base: `/v1/markets`, `/v1/depth?symbol=…`. */
  get wallexBaseUrl(): string {
    return `http://${this.origin}`;
  }

  /** Ramzinex, Bitpin, Tabdeal and Aban Tether bases, for the json-http presets (`iran-exchanges.ts`). */
  get iranExchangesBaseUrl(): string {
    return `http://${this.origin}`;
  }

  /** The made-up exchange's price document, for a json-http source: its full URL. */
  get panelUrl(): string {
    return `http://${this.origin}${PANEL_PATH}`;
  }

  /** Open WebSocket connections. */
  get connectionCount(): number {
    return this.stream.connectionCount;
  }

  /** The last opens and closes of Binance stream connections as the server saw them, oldest first. */
  binanceConnectionLog(): ConnectionEvent[] {
    return this.stream.connectionLog();
  }

  /** Current fault of each exchange. */
  faultState(): FaultState {
    return this.faults.state();
  }

  setFault(fault: SimulatorFault, target: FaultTarget = 'all', options: SetFaultOptions = {}): void {
    this.faults.set(fault, target, options);
  }

  /** Current best ask of a pair as sent on the wire when no price fault is set, e.g. '97123.45000000'. */
  askOf(pair: string): string {
    return formatUnits(this.marketOf(pair).ask);
  }

  /**
   * Current toman ask of a coin (`BTC`) or of tether (`USDT`) as Wallex (`askPrice` of `BTCTMN`)
   * and the panel (`sell` of `BTC-TMN`) send it when no price fault is set; Nobitex's `btc-rls`
   * bestSell is this × 10.
   */
  tomanAskOf(symbol: string): string {
    if (symbol === 'USDT') return formatPrice(tetherInToman(this.tether).ask);
    const coin = this.coins.find((listed) => listed.symbol === symbol);
    if (!coin) throw new Error(`${symbol} is not in the simulator's catalog`);
    return formatPrice(quoteIn(coin.symbol, coin.market, 'toman', this.tether).ask);
  }

  /** Current Nobitex usdt-rls bestSell in rial, as sent on the wire when no price fault is set. */
  usdtBestSellRial(): string {
    return String(this.tether.bestSell);
  }

  /**
   * How Nobitex answers for `markets` (`btc-rls`, `usdt-rls`; none given: every market):
   * `placeholders` as it was recorded answering (`"latest": "0E-10"`, `"dayChange": "-100.00"`),
   * `closed` with `isClosed: true`, `normal` again.
   */
  setNobitexCondition(condition: NobitexCondition, markets?: readonly string[]): void {
    this.nobitex.setCondition(condition, markets);
  }

  /**
   * How Wallex's `/v1/markets` answers: `slow` (after `delayMs`), `gone` (404), `normal`; its
   * order books, `/v1/depth`, answer as ever.
   */
  setWallexMarkets(condition: WallexMarketsCondition): void {
    this.wallex.setMarketsCondition(condition);
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
    this.stream.publish(market, eventTime);
    return eventTime;
  }

  /**
   * Binance's `serverShutdown` on every open stream connection, each closed `closeAfterMs` later
   * (default 1 000). Returns how many connections were told.
   */
  announceBinanceShutdown(closeAfterMs = 1_000): number {
    return this.stream.announceShutdown(closeAfterMs);
  }

  async stop(): Promise<void> {
    clearInterval(this.autoTickTimer);
    this.faults.stop();
    this.http.stop();
    await this.stream.stop();
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
        this.stream.publish(market, now);
      }
      if (now >= this.tether.nextDueAt) {
        this.tether.nextDueAt = now + TETHER_INTERVAL_MS;
        stepTetherMarket(this.tether, this.random);
      }
    }, AUTO_TICK_RESOLUTION_MS);
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://simulator');
    if (url.pathname === FAULT_CONTROL_PATH) {
      serveFaultControl(req, res, this.faults);
      return;
    }
    if (url.pathname === CONDITION_CONTROL_PATH) {
      serveConditionControl(req, res, this);
      return;
    }
    const endpoint =
      this.endpoints.get(url.pathname) ??
      [...this.endpoints.values()].find(
        (candidate) => candidate.pathPrefix && url.pathname.startsWith(candidate.path),
      );
    if (endpoint) this.http.serve(endpoint, req, res, url.searchParams, url.pathname);
    else sendJson(res, json(404, { error: 'not found' }));
  }
}
