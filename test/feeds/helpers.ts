import { WebSocket } from 'ws';
import { type Catalog, parseCatalog } from '../../src/domain/catalog.ts';
import type {
  CoinQuote,
  ConnectionState,
  FeedListener,
  SourceName,
  TetherQuote,
} from '../../src/feeds/types.ts';
import { createLogger } from '../../src/logger.ts';

export const silentLogger = createLogger('silent');

/** A small catalog: two busy coins, one tiny-priced coin, one coin missing from the price table, and USDT. */
export function smallCatalog(): Catalog {
  return parseCatalog([
    { symbol: 'BTC', name_fa: 'بیت‌کوین', pair: 'BTCUSDT' },
    { symbol: 'ETH', name_fa: 'اتریوم', pair: 'ETHUSDT' },
    { symbol: 'SHIB', name_fa: 'شیبا', pair: 'SHIBUSDT' },
    { symbol: 'ZZZ', name_fa: 'زد', pair: 'ZZZUSDT' },
    { symbol: 'USDT', name_fa: 'تتر', pair: null },
  ]);
}

/** Resolves when `check` returns a value other than undefined/null/false; fails after `timeoutMs`. */
export async function waitFor<T>(
  check: () => T | undefined | null | false,
  timeoutMs = 3_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A FeedListener that records everything it is told. */
export class RecordingListener implements FeedListener {
  readonly quotes: CoinQuote[] = [];
  readonly tether: TetherQuote[] = [];
  readonly rejections: { source: SourceName; reason: string }[] = [];
  readonly states: { source: SourceName; state: ConnectionState; detail: string }[] = [];

  coinQuote(quote: CoinQuote): void {
    this.quotes.push(quote);
  }

  tetherQuote(quote: TetherQuote): void {
    this.tether.push(quote);
  }

  rejected(source: SourceName, reason: string): void {
    this.rejections.push({ source, reason });
  }

  connectionState(source: SourceName, state: ConnectionState, detail: string): void {
    this.states.push({ source, state, detail });
  }

  lastState(): ConnectionState | undefined {
    return this.states.at(-1)?.state;
  }

  statesSeen(): ConnectionState[] {
    return this.states.map((s) => s.state);
  }
}

/** A raw WebSocket client that queues text frames, for checking the simulator's wire format. */
export class WireClient {
  readonly frames: string[] = [];
  readonly pings: Buffer[] = [];
  closed: { code: number; reason: string } | null = null;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => this.frames.push(data.toString()));
    ws.on('ping', (payload) => this.pings.push(payload));
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
    });
    ws.on('error', () => {});
  }

  static open(url: string, options: { autoPong?: boolean } = {}): Promise<WireClient> {
    const ws = new WebSocket(url, { autoPong: options.autoPong ?? true });
    const client = new WireClient(ws);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(client));
      ws.once('error', reject);
    });
  }

  send(message: unknown): void {
    this.ws.send(JSON.stringify(message));
  }

  /** Next unread frame, parsed. */
  async next(timeoutMs = 2_000): Promise<unknown> {
    const text = await waitFor(() => this.frames.shift(), timeoutMs, 'a frame');
    return JSON.parse(text);
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.ws.once('close', () => resolve());
      this.ws.terminate();
    });
  }
}
