import { describe, expect, it } from 'vitest';
import { Route } from '../../src/collector/coin-route.ts';
import { SourceAvailability, SourceSeries } from '../../src/collector/source-series.ts';

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const timing = { staleMs: 120_000, returnAfterMs: 300_000 };

/** BTC in tether from binance, then nobitex, then wallex. */
function setup() {
  const coin = { quoted: false, quotedByPreferred: () => false };
  const sources = ['binance', 'nobitex', 'wallex'].map((name, order) => new SourceAvailability(name, order));
  const series = sources.map((source) => new SourceSeries('BTC', 'usdt', source, coin));
  const route = new Route('BTC', 'usdt', series);
  const [binance, nobitex, wallex] = series as [SourceSeries, SourceSeries, SourceSeries];
  /** An accepted quote at clock time `at`. */
  const quote = (target: SourceSeries, price: number, at: number) => {
    target.price = price;
    target.heard(at, timing.staleMs);
  };
  const refuse = (index: number, detail: string) => {
    const source = sources[index] as SourceAvailability;
    source.refused = true;
    source.refusal = detail;
  };
  const serveAgain = (index: number, at: number) => {
    const source = sources[index] as SourceAvailability;
    source.refused = false;
    source.servingSince = at;
  };
  const serving = () => route.current()?.source.name ?? null;
  return { route, binance, nobitex, wallex, quote, refuse, serveAgain, serving };
}

describe('Route: which source serves the coin', () => {
  it('serves none before any source has priced it, then the first usable one, without a move to log', () => {
    const { route, nobitex, binance, quote, serving } = setup();
    expect(route.select(T0, timing)).toBeNull();
    expect(serving()).toBeNull();
    quote(nobitex, 64_000, T0);
    expect(route.select(T0, timing)).toBeNull();
    expect(serving()).toBe('nobitex');
    // The primary had never failed the coin: it takes it at once, as at start-up, with nothing to log.
    quote(binance, 64_100, T0 + 1000);
    expect(route.select(T0 + 1000, timing)).toBeNull();
    expect(serving()).toBe('binance');
  });

  it('moves at once to the next usable source when the serving one refuses', () => {
    const { route, binance, nobitex, quote, refuse, serving } = setup();
    quote(binance, 64_000, T0);
    quote(nobitex, 64_050, T0);
    route.select(T0, timing);
    refuse(0, 'HTTP 451: Service unavailable from a restricted location');
    expect(route.select(T0 + 1, timing)).toEqual({
      symbol: 'BTC',
      currency: 'usdt',
      from: 'binance',
      to: 'nobitex',
      kind: 'failover',
      reason: 'refused: HTTP 451: Service unavailable from a restricted location',
      toPrimary: false,
    });
    expect(serving()).toBe('nobitex');
  });

  it('moves when the serving source has not quoted the coin for longer than the stale time, skipping stale ones', () => {
    const { route, binance, nobitex, wallex, quote, serving } = setup();
    quote(binance, 64_000, T0);
    quote(nobitex, 64_050, T0);
    quote(wallex, 64_080, T0 + 60_000);
    route.select(T0, timing);
    expect(route.select(T0 + 120_000, timing)).toBeNull();
    expect(route.select(T0 + 120_001, timing)).toMatchObject({
      from: 'binance',
      to: 'wallex',
      kind: 'failover',
      reason: 'no quote for more than 120 s',
    });
    expect(serving()).toBe('wallex');
  });

  it('returns to an earlier source only once it has been usable for the return time, and does not flap', () => {
    const { route, binance, nobitex, quote, refuse, serveAgain, serving } = setup();
    quote(binance, 64_000, T0);
    quote(nobitex, 64_050, T0);
    route.select(T0, timing);
    refuse(0, 'HTTP 451');
    route.select(T0 + 1000, timing);
    serveAgain(0, T0 + 10_000);
    // Binance answers again and quotes; Nobitex keeps the coin until Binance has proven itself.
    for (let at = T0 + 10_000; at < T0 + 310_000; at += 10_000) {
      quote(binance, 64_000, at);
      quote(nobitex, 64_050, at);
      expect(route.select(at, timing)).toBeNull();
      expect(serving()).toBe('nobitex');
    }
    quote(binance, 64_000, T0 + 310_000);
    expect(route.select(T0 + 310_000, timing)).toMatchObject({
      from: 'nobitex',
      to: 'binance',
      kind: 'return',
      toPrimary: true,
    });
    expect(serving()).toBe('binance');
  });

  it('restarts the return time when the earlier source lapses again meanwhile', () => {
    const { route, binance, nobitex, quote, serving } = setup();
    quote(binance, 64_000, T0);
    quote(nobitex, 64_050, T0);
    route.select(T0, timing);
    quote(nobitex, 64_050, T0 + 121_000);
    route.select(T0 + 121_000, timing);
    expect(serving()).toBe('nobitex');
    quote(binance, 64_000, T0 + 130_000);
    quote(nobitex, 64_050, T0 + 240_000);
    // A second gap in Binance's quotes: its usable time counts from the quote after it.
    quote(binance, 64_000, T0 + 260_000);
    quote(nobitex, 64_050, T0 + 360_000);
    quote(binance, 64_000, T0 + 380_000);
    expect(route.select(T0 + 430_000, timing)).toBeNull();
    quote(nobitex, 64_050, T0 + 470_000);
    quote(binance, 64_000, T0 + 500_000);
    quote(binance, 64_000, T0 + 560_000);
    expect(route.select(T0 + 560_000, timing)).toMatchObject({ to: 'binance', kind: 'return' });
  });

  it('takes a usable earlier source at once when the serving one fails too', () => {
    const { route, binance, nobitex, wallex, quote, refuse, serveAgain, serving } = setup();
    for (const series of [binance, nobitex, wallex]) quote(series, 64_000, T0);
    route.select(T0, timing);
    refuse(0, 'HTTP 451');
    refuse(1, 'HTTP 403');
    route.select(T0 + 1, timing);
    expect(serving()).toBe('wallex');
    serveAgain(0, T0 + 1000);
    quote(binance, 64_000, T0 + 1000);
    quote(wallex, 64_000, T0 + 1000);
    expect(route.select(T0 + 2000, timing)).toBeNull();
    refuse(2, 'HTTP 451');
    expect(route.select(T0 + 3000, timing)).toMatchObject({
      from: 'wallex',
      to: 'binance',
      kind: 'failover',
    });
  });

  it('keeps the serving source, and its last price, while no source is usable', () => {
    const { route, binance, nobitex, quote, refuse, serving } = setup();
    quote(binance, 64_000, T0);
    route.select(T0, timing);
    refuse(0, 'HTTP 451');
    expect(route.select(T0 + 1, timing)).toBeNull();
    expect(serving()).toBe('binance');
    quote(nobitex, 64_050, T0 + 2);
    expect(route.select(T0 + 2, timing)).toMatchObject({ from: 'binance', to: 'nobitex' });
  });

  it('serves a price restored at start until a source quotes, and leaves it without a move to log', () => {
    const { route, binance, nobitex, quote, serving } = setup();
    nobitex.seed(64_000, T0 - 60_000);
    expect(route.select(T0, timing)).toBeNull();
    expect(serving()).toBe('nobitex');
    quote(binance, 64_100, T0 + 1000);
    expect(route.select(T0 + 1000, timing)).toBeNull();
    expect(serving()).toBe('binance');
  });
});
