import { describe, expect, it } from 'vitest';
import {
  createPairMarket,
  createTetherMarket,
  seededRandom,
  setMarketAsk,
} from '../../src/simulator/market.ts';
import { formatPrice, quoteIn, tetherInToman } from '../../src/simulator/quoted-markets.ts';

function markets(ask: string, rial = 1_052_990) {
  const random = seededRandom(1);
  const market = createPairMarket('BTC', 'BTCUSDT', random, 0);
  setMarketAsk(market, BigInt(Math.round(Number(ask) * 1e8)), random);
  return { market, tether: createTetherMarket(rial, random, 0) };
}

describe('quoted markets', () => {
  it('quotes toman as usdt × tether toman, a whole toman for most coins, and rial as toman × 10', () => {
    const { market, tether } = markets('97250.12');
    const toman = quoteIn('BTC', market, 'toman', tether);
    // 97250.12 × 105299 = 10240340385.88 → 10240340386 toman.
    expect(formatPrice(toman.ask)).toBe('10240340386');
    expect(formatPrice(quoteIn('BTC', market, 'rial', tether).ask)).toBe('102403403860');
    expect(formatPrice(quoteIn('BTC', market, 'usdt', tether).ask)).toBe('97250.12');
    expect(toman.bid.units).toBeLessThan(toman.ask.units);
  });

  it('keeps about five significant digits of a coin worth a few toman, and rial one decimal fewer', () => {
    const { market, tether } = markets('0.00002193');
    // 0.00002193 × 105299 = 2.30920707 → 2.3092 toman, 23.092 rial.
    expect(formatPrice(quoteIn('SHIB', market, 'toman', tether).ask)).toBe('2.3092');
    expect(formatPrice(quoteIn('SHIB', market, 'rial', tether).ask)).toBe('23.092');
  });

  it("quotes tether's toman market from Nobitex's rial book ÷ 10", () => {
    expect(formatPrice(tetherInToman(createTetherMarket(1_052_990, seededRandom(1), 0)).ask)).toBe('105299');
  });
});
