import { describe, expect, it } from 'vitest';
import {
  createPairMarket,
  formatUnits,
  parseUnits,
  priceDecimals,
  seededRandom,
  stepMarket,
} from '../../src/simulator/market.ts';

describe('simulated market', () => {
  it('formats and parses 8-decimal wire prices exactly', () => {
    expect(formatUnits(9_712_345_000_000n)).toBe('97123.45000000');
    expect(formatUnits(-150_000_000n)).toBe('-1.50000000');
    expect(formatUnits(1_234n)).toBe('0.00001234');
    expect(parseUnits('97123.45')).toBe(9_712_345_000_000n);
    expect(parseUnits('0.00000001')).toBe(1n);
    expect(parseUnits('1e5')).toBeNull();
    expect(parseUnits('0.000000001')).toBeNull();
  });

  it('uses tick sizes like Binance for each price magnitude', () => {
    expect(priceDecimals(97_000)).toBe(2);
    expect(priceDecimals(2.34)).toBe(4);
    expect(priceDecimals(0.32)).toBe(5);
    expect(priceDecimals(0.000022)).toBe(8);
  });

  it('starts well-known coins at realistic prices and gives unknown coins a stable fallback', () => {
    const random = seededRandom(1);
    const btc = createPairMarket('BTC', 'BTCUSDT', random, 0);
    expect(Number(formatUnits(btc.ask))).toBeGreaterThan(50_000);
    const first = createPairMarket('ZZZ', 'ZZZUSDT', seededRandom(1), 0);
    const second = createPairMarket('ZZZ', 'ZZZUSDT', seededRandom(99), 0);
    expect(first.anchor).toBe(second.anchor);
    expect(first.anchor).toBeGreaterThan(0);
  });

  it('ticks busy coins every second and quiet coins far less often', () => {
    const random = seededRandom(3);
    expect(createPairMarket('BTC', 'BTCUSDT', random, 0).intervalMs).toBe(1_000);
    const quiet = ['LINK', 'DOT', 'ATOM', 'NEAR', 'ALGO'].map(
      (symbol) => createPairMarket(symbol, `${symbol}USDT`, random, 0).intervalMs,
    );
    for (const interval of quiet) expect(interval).toBeGreaterThanOrEqual(2_000);
    expect(Math.max(...quiet)).toBeGreaterThanOrEqual(10_000);
  });

  it('walks with both moving and unchanged asks, always above the bid, on the tick grid', () => {
    const random = seededRandom(11);
    const market = createPairMarket('DOGE', 'DOGEUSDT', random, 0);
    let moved = 0;
    let unchanged = 0;
    for (let i = 0; i < 500; i++) {
      const before = market.ask;
      stepMarket(market, random);
      if (market.ask === before) unchanged++;
      else moved++;
      expect(market.ask).toBeGreaterThan(market.bid);
      expect(market.ask % market.tickUnits).toBe(0n);
    }
    expect(moved).toBeGreaterThan(200);
    expect(unchanged).toBeGreaterThan(100);
    const price = Number(formatUnits(market.ask));
    expect(price).toBeGreaterThan(0.32 / 2);
    expect(price).toBeLessThan(0.32 * 2);
  });
});
