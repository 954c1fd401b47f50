import { onTestFinished } from 'vitest';
import { WebSocket } from 'ws';
import { type Catalog, parseCatalog } from '../../src/domain/catalog.ts';
import { ExchangeSimulator, type SimulatorOptions } from '../../src/simulator/exchange-simulator.ts';
import { waitFor } from './wait.ts';

/** A small catalog: two busy coins, one tiny-priced coin, one coin missing from the price table, and USDT. */
export function smallCatalog(): Catalog {
  return parseCatalog([
    { symbol: 'BTC', name_fa: 'بیت‌کوین', name_en: 'Bitcoin', pair: 'BTCUSDT' },
    { symbol: 'ETH', name_fa: 'اتریوم', name_en: 'Ethereum', pair: 'ETHUSDT' },
    { symbol: 'SHIB', name_fa: 'شیبا', name_en: 'Shiba Inu', pair: 'SHIBUSDT' },
    { symbol: 'ZZZ', name_fa: 'زد', name_en: 'Zed', pair: 'ZZZUSDT' },
    { symbol: 'USDT', name_fa: 'تتر', name_en: 'Tether', pair: null },
  ]);
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

/** A simulator on the small catalog, driven by `tick` (no timers), stopped when the test ends. */
export async function startSimulator(options: Partial<SimulatorOptions> = {}): Promise<ExchangeSimulator> {
  const simulator = await ExchangeSimulator.start({
    catalog: smallCatalog(),
    seed: 7,
    autoTick: false,
    ...options,
  });
  onTestFinished(() => simulator.stop());
  return simulator;
}

/** A raw WebSocket client on `path` of the simulator's Binance stream, closed when the test ends. */
export async function connect(
  simulator: ExchangeSimulator,
  path: string,
  options: { autoPong?: boolean } = {},
): Promise<WireClient> {
  const client = await WireClient.open(`${simulator.wsBaseUrl}${path}`, options);
  onTestFinished(() => client.close());
  return client;
}
