import { describe, expect, it } from 'vitest';
import type { MarketRequest } from '../../src/feeds/types.ts';
import { parseWallexDepth } from '../../src/feeds/wallex-depth.ts';
import { fixture } from '../support/fixtures.ts';
import { startSimulator } from '../support/simulator.ts';

interface WallexBody {
  success: boolean;
  message: string;
  result: { symbols: Record<string, Record<string, unknown> & { stats: Record<string, string> }> };
}

async function markets(url: string): Promise<WallexBody> {
  const response = await fetch(`${url}/v1/markets`);
  expect(response.status).toBe(200);
  return (await response.json()) as WallexBody;
}

describe('Wallex markets', () => {
  it('lists every coin in TMN and USDT, and USDTTMN, in the documented shape', async () => {
    const sim = await startSimulator();
    const body = await markets(sim.wallexBaseUrl);
    expect(body).toMatchObject({ success: true, message: 'The operation was successful' });
    expect(Object.keys(body.result.symbols).sort()).toEqual(
      ['USDTTMN', ...['BTC', 'ETH', 'SHIB', 'ZZZ'].flatMap((s) => [`${s}TMN`, `${s}USDT`])].sort(),
    );
    const btc = body.result.symbols.BTCTMN ?? { stats: {} };
    expect(btc).toMatchObject({
      symbol: 'BTCTMN',
      baseAsset: 'BTC',
      quoteAsset: 'TMN',
      faBaseAsset: 'بیت‌کوین',
    });
    expect(Object.keys(btc.stats)).toEqual([
      'bidPrice',
      'askPrice',
      '24h_ch',
      '24h_volume',
      '24h_quoteVolume',
      '24h_highPrice',
      '24h_lowPrice',
      'lastPrice',
      'lastQty',
    ]);
    for (const entry of Object.values(body.result.symbols)) {
      for (const field of ['bidPrice', 'askPrice', '24h_ch', 'lastPrice']) {
        expect(typeof entry.stats[field], `${entry.symbol} ${field}`).toBe('string');
      }
      expect(Number(entry.stats.bidPrice)).toBeLessThan(Number(entry.stats.askPrice));
    }
  });

  it('quotes the same market as the other exchanges: TMN = usdt × tether toman, USDT = Binance ask', async () => {
    const sim = await startSimulator();
    sim.setUsdtBestSellRial('1052990');
    sim.tick('BTCUSDT', '97250.12');
    const { symbols } = (await markets(sim.wallexBaseUrl)).result;
    expect(symbols.BTCTMN?.stats.askPrice).toBe('10240340386');
    expect(symbols.BTCTMN?.stats.askPrice).toBe(sim.tomanAskOf('BTC'));
    expect(symbols.BTCUSDT?.stats.askPrice).toBe('97250.12');
    expect(symbols.USDTTMN?.stats.askPrice).toBe('105299');
    expect(sim.tomanAskOf('USDT')).toBe('105299');
  });

  it('applies price faults set on wallex only, and answers 451 under geo-block', async () => {
    const sim = await startSimulator();
    sim.setFault('negative', 'wallex');
    const { symbols } = (await markets(sim.wallexBaseUrl)).result;
    expect(symbols.BTCTMN?.stats.askPrice).toBe(`-${sim.tomanAskOf('BTC')}`);
    const nobitex = await fetch(`${sim.nobitexBaseUrl}/market/stats?srcCurrency=btc&dstCurrency=rls`);
    expect(
      ((await nobitex.json()) as { stats: Record<string, { bestSell: string }> }).stats['btc-rls']?.bestSell,
    ).not.toMatch(/^-/);

    sim.setFault('geo-block', 'wallex');
    const blocked = await fetch(`${sim.wallexBaseUrl}/v1/markets`);
    expect(blocked.status).toBe(451);
    expect(await blocked.json()).toEqual({
      result: {},
      message: 'Unavailable For Legal Reasons',
      success: false,
    });
  });
});

describe('Wallex order books and a slow or missing /v1/markets', () => {
  it("answers /v1/depth in the documented envelope and entry shape, the lowest ask the market's, read by the adapter's parser", async () => {
    const sim = await startSimulator();
    const text = await (await fetch(`${sim.wallexBaseUrl}/v1/depth?symbol=BTCTMN`)).text();
    const body = JSON.parse(text) as { result: { ask: Record<string, unknown>[]; bid: unknown[] } };
    const documented = JSON.parse(fixture('wallex/depth-usdcusdt.json')) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(Object.keys(documented).sort());
    expect(Object.keys(body.result).sort()).toEqual(['ask', 'bid']);
    for (const entry of body.result.ask)
      expect(Object.keys(entry).sort()).toEqual(['price', 'quantity', 'sum']);
    const btc: MarketRequest = { symbol: 'BTC', currency: 'toman', market: 'BTCTMN' };
    expect(parseWallexDepth(text, btc, 1)).toMatchObject({
      quotes: [{ ask: Number(sim.tomanAskOf('BTC')) }],
      rejected: [],
    });
    expect((await fetch(`${sim.wallexBaseUrl}/v1/depth?symbol=NOPETMN`)).status).toBe(422);
  });

  it('makes /v1/markets slow or gone while the books answer', async () => {
    const sim = await startSimulator();
    sim.setWallexMarkets({ kind: 'gone' });
    expect((await fetch(`${sim.wallexBaseUrl}/v1/markets`)).status).toBe(404);
    expect((await fetch(`${sim.wallexBaseUrl}/v1/depth?symbol=USDTTMN`)).status).toBe(200);
    sim.setWallexMarkets({ kind: 'slow', delayMs: 300 });
    const started = Date.now();
    expect((await fetch(`${sim.wallexBaseUrl}/v1/markets`)).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(() => sim.setWallexMarkets({ kind: 'slow', delayMs: 0 })).toThrow(
      'delayMs must be a positive integer',
    );
  });
});
