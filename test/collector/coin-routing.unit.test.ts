import { describe, expect, it } from 'vitest';
import { CoinRouting } from '../../src/collector/coin-routing.ts';
import { loadConfig } from '../../src/config.ts';
import { parseCatalog } from '../../src/domain/catalog.ts';
import { builtInSources } from '../../src/sources/default-sources.ts';
import { parseSources } from '../../src/sources/load-sources.ts';

const catalog = parseCatalog([
  { symbol: 'USDT', name_fa: 'تتر', name_en: 'Tether', pair: null },
  { symbol: 'ETH', name_fa: 'اتریوم', name_en: 'Ethereum', pair: 'ETHUSDT' },
  { symbol: 'BTC', name_fa: 'بیت‌کوین', name_en: 'Bitcoin', pair: 'BTCUSDT' },
]);

describe('CoinRouting', () => {
  it('asks the built-in sources for every coin in tether from Binance and Nobitex, and for tether in toman from Nobitex', () => {
    const routing = new CoinRouting(builtInSources(loadConfig({})), catalog);
    expect(routing.requests()).toEqual(
      new Map([
        [
          'binance',
          [
            { symbol: 'ETH', currency: 'usdt' },
            { symbol: 'BTC', currency: 'usdt' },
          ],
        ],
        [
          'nobitex',
          [
            { symbol: 'ETH', currency: 'usdt' },
            { symbol: 'BTC', currency: 'usdt' },
            { symbol: 'USDT', currency: 'toman' },
          ],
        ],
      ]),
    );
    expect(routing.seriesOf('binance', 'usdt', 'BTC')).toBeDefined();
    expect(routing.seriesOf('nobitex', 'usdt', 'BTC')).toBeDefined();
    expect(routing.seriesOf('binance', 'toman', 'BTC')).toBeUndefined();
    expect(routing.seriesOf('wallex', 'usdt', 'BTC')).toBeUndefined();
  });

  it('asks a toman source for the coin in tether too, when its kind quotes tether, and shares one series per coin, currency and source', () => {
    const setup = parseSources(
      `sources:
  - { name: binance, kind: binance, url: "wss://stream.binance.com:9443" }
  - { name: nobitex, kind: nobitex, url: "https://apiv2.nobitex.ir" }
  - { name: wallex, kind: wallex, url: "https://api.wallex.ir" }
  - { name: panel, kind: json-http, url: "https://panel.example/p", mapping: { quotes: data, key: s, ask: a, currency: rial } }
routes:
  default: { usdt: [binance, wallex], toman: [wallex, panel] }
  coins:
    USDT: { toman: [nobitex] }
    ETH: { toman: [] }
`,
      'sources.yaml',
      { catalog, env: {} },
    );
    const routing = new CoinRouting(setup, catalog);
    const requests = routing.requests();
    expect(requests.get('wallex')).toEqual([
      { symbol: 'ETH', currency: 'usdt' },
      { symbol: 'BTC', currency: 'usdt' },
      { symbol: 'BTC', currency: 'toman' },
    ]);
    expect(requests.get('panel')).toEqual([{ symbol: 'BTC', currency: 'toman' }]);
    expect(requests.get('nobitex')).toEqual([{ symbol: 'USDT', currency: 'toman' }]);
    const btc = routing.coins.find((coin) => coin.symbol === 'BTC');
    expect(btc?.toman.series.map((series) => [series.source.name, series.companion])).toEqual([
      ['wallex', routing.seriesOf('wallex', 'usdt', 'BTC')],
      ['panel', null],
    ]);
    expect(btc?.usdt.series[1]).toBe(routing.seriesOf('wallex', 'usdt', 'BTC'));
    expect(routing.tether.route.series.map((series) => series.wholeToman)).toEqual([true]);
  });
});
