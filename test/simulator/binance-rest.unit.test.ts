import { describe, expect, it } from 'vitest';
import { startSimulator } from '../support/simulator.ts';

const REST_FIELDS = [
  'symbol',
  'priceChange',
  'priceChangePercent',
  'weightedAvgPrice',
  'prevClosePrice',
  'lastPrice',
  'lastQty',
  'bidPrice',
  'bidQty',
  'askPrice',
  'askQty',
  'openPrice',
  'highPrice',
  'lowPrice',
  'volume',
  'quoteVolume',
  'openTime',
  'closeTime',
  'firstId',
  'lastId',
  'count',
];
const DECIMAL_8 = /^-?\d+\.\d{8}$/;

describe('Binance REST 24 h ticker', () => {
  it('answers symbols=[…] with the documented field names, prices as strings', async () => {
    const sim = await startSimulator();
    sim.tick('ETHUSDT', '3401.5');
    const symbols = encodeURIComponent(JSON.stringify(['BTCUSDT', 'ETHUSDT']));
    const response = await fetch(`${sim.restBaseUrl}/api/v3/ticker/24hr?symbols=${symbols}`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>[];
    expect(body.map((t) => t.symbol)).toEqual(['BTCUSDT', 'ETHUSDT']);
    for (const ticker of body) {
      expect(Object.keys(ticker)).toEqual(REST_FIELDS);
      for (const field of ['lastPrice', 'bidPrice', 'askPrice', 'openPrice', 'highPrice', 'lowPrice']) {
        expect(ticker[field], field).toMatch(DECIMAL_8);
      }
      for (const field of ['openTime', 'closeTime', 'firstId', 'lastId', 'count']) {
        expect(Number.isSafeInteger(ticker[field]), field).toBe(true);
      }
      expect(Number(ticker.askPrice)).toBeGreaterThan(Number(ticker.bidPrice));
    }
    expect(body[1]?.askPrice).toBe('3401.50000000');
  });

  it('answers symbol=… with one object and an unknown symbol with 400 -1121', async () => {
    const sim = await startSimulator();
    const one = await fetch(`${sim.restBaseUrl}/api/v3/ticker/24hr?symbol=BTCUSDT`);
    expect(((await one.json()) as Record<string, unknown>).askPrice).toBe(sim.askOf('BTCUSDT'));

    const bad = await fetch(`${sim.restBaseUrl}/api/v3/ticker/24hr?symbol=NOPEUSDT`);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ code: -1121, msg: 'Invalid symbol.' });
    const badList = await fetch(
      `${sim.restBaseUrl}/api/v3/ticker/24hr?symbols=${encodeURIComponent('["BTCUSDT","NOPEUSDT"]')}`,
    );
    expect(badList.status).toBe(400);
    expect(((await badList.json()) as { code: number }).code).toBe(-1121);
  });
});
