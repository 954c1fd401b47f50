import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/catalog-file.ts';
import { trySources } from '../../src/collector/try-sources.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { ExchangeSimulator } from '../../src/simulator/exchange-simulator.ts';
import { parseSources } from '../../src/sources/load-sources.ts';
import { againstSimulator, presetText } from '../support/simulated-sources.ts';

/** The simulator answers as Ramzinex, Bitpin, Tabdeal and Aban Tether do: the shipped presets read it as they read the exchanges. */

const catalog = loadCatalog();
let sim: ExchangeSimulator;
beforeAll(async () => {
  sim = await ExchangeSimulator.start({ catalog, seed: 5, autoTick: false });
});
afterAll(() => sim.stop());

async function tryPreset(preset: string) {
  const setup = parseSources(againstSimulator(sim, presetText(preset)), `${preset}.yaml`, {
    catalog,
    env: {},
  });
  return trySources({
    config: loadConfig({}),
    catalog,
    sources: setup,
    logger: createLogger('silent'),
    tuning: { minPollMs: 20 },
    timeoutMs: 3_000,
  });
}

describe('the simulated Iranian exchanges, read through their presets', () => {
  it.each(['ramzinex', 'bitpin', 'tabdeal', 'abantether'])(
    '%s: BTC, TON and tether in toman as the simulator quotes them',
    async (preset) => {
      const result = await tryPreset(preset);
      for (const symbol of ['BTC', 'TON']) {
        expect(result.servedBy.get(symbol)).toBe(preset);
        const row = result.draft.rates.find((rate) => rate.symbol === symbol);
        expect(row?.sell_irt).toBe(Math.round(Number(sim.tomanAskOf(symbol))));
      }
      expect(result.servedBy.get('USDT')).toBe(preset);
      expect(result.draft.usdt_irt).toBe(Math.round(Number(sim.tomanAskOf('USDT'))));
      expect(result.sources.find((trial) => trial.name === preset)).toMatchObject({ ok: true, missing: [] });
    },
  );

  it('answers 404 for a market it does not list', async () => {
    for (const path of ['/exchange/api/v1.0/exchange/pairs/999', '/api/v1/mth/orderbook/NOPE_IRT/']) {
      const response = await fetch(`${sim.iranExchangesBaseUrl}${path}`);
      expect(response.status).toBe(404);
    }
    const tabdeal = await fetch(`${sim.iranExchangesBaseUrl}/r/api/v1/depth?symbol=NOPEIRT&limit=1`);
    expect(tabdeal.status).toBe(400);
    expect(await tabdeal.json()).toEqual({ code: -1121, msg: 'Invalid symbol.' });
  });

  it("lists Aban Tether's coins under data, price_buy (what a user pays) above price_sell", async () => {
    const body = (await (await fetch(`${sim.iranExchangesBaseUrl}/manager/coins/data`)).json()) as {
      data: { symbol: string; price_buy: string; price_sell: string; is_buy_active: boolean }[];
    };
    const btc = body.data.find((coin) => coin.symbol === 'BTC');
    expect(btc?.price_buy).toBe(sim.tomanAskOf('BTC'));
    expect(Number(btc?.price_sell)).toBeLessThan(Number(btc?.price_buy));
    expect(btc?.is_buy_active).toBe(true);
    expect(body.data.map((coin) => coin.symbol)).toContain('USDT');
  });

  it("lists Ramzinex's markets, each naming its base and quote, sell (the ask) above buy", async () => {
    const body = (await (
      await fetch(`${sim.iranExchangesBaseUrl}/exchange/api/v1.0/exchange/pairs`)
    ).json()) as {
      status: number;
      data: {
        pair_id: number;
        base_currency_symbol: { en: string };
        quote_currency_symbol: { en: string };
        sell: number;
        buy: number;
      }[];
    };
    expect(body.status).toBe(0);
    const btc = body.data.find((pair) => pair.base_currency_symbol.en === 'btc');
    expect(btc?.quote_currency_symbol.en).toBe('irr');
    expect(btc?.sell).toBe(Number(sim.tomanAskOf('BTC')) * 10);
    expect(btc?.buy).toBeLessThan(btc?.sell ?? 0);
  });

  it("sends an order book's asks lowest first and its bids highest first", async () => {
    const body = (await (
      await fetch(`${sim.iranExchangesBaseUrl}/api/v1/mth/orderbook/BTC_IRT/`)
    ).json()) as {
      asks: string[][];
      bids: string[][];
    };
    const asks = body.asks.map(([price]) => Number(price));
    const bids = body.bids.map(([price]) => Number(price));
    expect(asks).toEqual([...asks].sort((a, b) => a - b));
    expect(bids).toEqual([...bids].sort((a, b) => b - a));
    expect(body.asks[0]?.[0]).toBe(sim.tomanAskOf('BTC'));
    expect((bids[0] ?? 0) < (asks[0] ?? 0)).toBe(true);
  });
});
