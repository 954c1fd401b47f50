import net from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { trySources } from '../../src/collector/try-sources.ts';
import { loadConfig } from '../../src/config.ts';
import { parseCatalog } from '../../src/domain/catalog.ts';
import { createLogger } from '../../src/logger.ts';
import { parseSources } from '../../src/sources/load-sources.ts';
import { freePort } from '../support/run-cli.ts';

const catalog = parseCatalog([
  { symbol: 'USDT', name_fa: 'تتر', name_en: 'Tether', pair: null },
  { symbol: 'BTC', name_fa: 'بیت‌کوین', name_en: 'Bitcoin', pair: 'BTCUSDT' },
]);

/** A server that accepts connections and never answers. */
async function silentServer(): Promise<number> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  return (server.address() as net.AddressInfo).port;
}

const setupFor = (nobitexUrl: string, wallexUrl: string) =>
  parseSources(
    `sources:
  - { name: nobitex, kind: nobitex, url: "${nobitexUrl}" }
  - { name: wallex, kind: wallex, url: "${wallexUrl}" }
routes:
  default: { usdt: [nobitex, wallex], toman: [nobitex, wallex] }
`,
    'sources.yaml',
    { catalog, env: {} },
  );

describe('trySources', () => {
  it('fails a source that cannot be reached, or does not answer in time, saying which, and publishes nothing of it', async () => {
    const closed = await freePort();
    const silent = await silentServer();
    const result = await trySources({
      config: loadConfig({}),
      catalog,
      sources: setupFor(`http://127.0.0.1:${closed}`, `http://127.0.0.1:${silent}`),
      logger: createLogger('silent'),
      timeoutMs: 500,
    });
    expect(result.draft.rates).toEqual([]);
    expect(result.sources).toEqual([
      {
        name: 'nobitex',
        kind: 'nobitex',
        ok: false,
        detail: expect.stringMatching(
          /^request failed \(fetch failed: connect ECONNREFUSED 127\.0\.0\.1:\d+\)$/,
        ),
        requested: 3,
        quoted: 0,
        missing: ['BTC/usdt', 'USDT/toman', 'BTC/toman'],
        rejected: {},
        // What it would have read, failed or not: Nobitex's IRT markets in rial.
        markets: [
          { symbol: 'BTC', currency: 'usdt', market: 'btc-usdt', quotedIn: 'usdt', coinsPerQuote: 1 },
          { symbol: 'USDT', currency: 'toman', market: 'usdt-rls', quotedIn: 'rial', coinsPerQuote: 1 },
          { symbol: 'BTC', currency: 'toman', market: 'btc-rls', quotedIn: 'rial', coinsPerQuote: 1 },
        ],
      },
      {
        name: 'wallex',
        kind: 'wallex',
        ok: false,
        detail: 'no answer within 0.5 s',
        requested: 3,
        quoted: 0,
        missing: ['BTC/usdt', 'USDT/toman', 'BTC/toman'],
        rejected: {},
        markets: [
          { symbol: 'BTC', currency: 'usdt', market: 'BTCUSDT', quotedIn: 'usdt', coinsPerQuote: 1 },
          { symbol: 'USDT', currency: 'toman', market: 'USDTTMN', quotedIn: 'toman', coinsPerQuote: 1 },
          { symbol: 'BTC', currency: 'toman', market: 'BTCTMN', quotedIn: 'toman', coinsPerQuote: 1 },
        ],
      },
    ]);
  });
});
