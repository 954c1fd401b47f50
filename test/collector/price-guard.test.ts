import { describe, expect, it } from 'vitest';
import { PriceGuard, PriceState } from '../../src/collector/price-guard.ts';
import { createLogger } from '../../src/logger.ts';

const T0 = Date.parse('2026-03-01T10:00:00.000Z');

interface LogLine {
  msg: string;
  source?: string;
  price?: number;
  previous?: number | null;
  heldMs?: number;
}

function setup(options: { maxJumpPct?: number; jumpConfirmMs?: number; jumpConfirmTicks?: number } = {}) {
  const logs: LogLine[] = [];
  const guard = new PriceGuard({
    maxJumpPct: options.maxJumpPct ?? 50,
    jumpConfirmMs: options.jumpConfirmMs ?? 60_000,
    jumpConfirmTicks: options.jumpConfirmTicks ?? 3,
    logger: createLogger('debug', { write: (line: string) => logs.push(JSON.parse(line) as LogLine) }),
  });
  const state = new PriceState();
  const tick = (price: number, tickTime: number) => guard.apply(state, price, tickTime, 'binance');
  return { guard, state, tick, logs };
}

describe('PriceGuard: accepted ticks', () => {
  it('takes the first positive price and its tick time as as_of', () => {
    const { state, tick } = setup();
    expect(tick(64_000.5, T0)).toBeNull();
    expect(state).toMatchObject({ price: 64_000.5, movedAt: T0, tickTime: T0 });
  });

  it('keeps as_of on an unchanged tick and moves it on a tick that moves the price', () => {
    const { state, tick } = setup();
    tick(64_000, T0);
    expect(tick(64_000, T0 + 5000)).toBeNull();
    expect(state).toMatchObject({ price: 64_000, movedAt: T0, tickTime: T0 + 5000 });
    expect(tick(64_010, T0 + 9000)).toBeNull();
    expect(state).toMatchObject({ price: 64_010, movedAt: T0 + 9000, tickTime: T0 + 9000 });
  });

  it('accepts a tick with the same tick time as the last one', () => {
    const { state, tick } = setup();
    tick(64_000, T0);
    expect(tick(64_100, T0)).toBeNull();
    expect(state.price).toBe(64_100);
  });
});

describe('PriceGuard: refused ticks', () => {
  it('names the reason and leaves the price and as_of as they were', () => {
    const { state, tick } = setup({ maxJumpPct: 50 });
    tick(64_000, T0);
    expect(tick(Number.NaN, T0 + 1)).toBe('not-a-number');
    expect(tick(Number.POSITIVE_INFINITY, T0 + 2)).toBe('not-a-number');
    expect(tick(-1, T0 + 3)).toBe('not-positive');
    expect(tick(0, T0 + 4)).toBe('not-positive');
    expect(tick(640_000, T0 + 5)).toBe('absurd-jump');
    expect(tick(1, T0 + 6)).toBe('absurd-jump');
    expect(tick(64_100, T0 - 1)).toBe('stale-tick');
    expect(state).toMatchObject({ price: 64_000, movedAt: T0, tickTime: T0 });
  });

  it('measures the jump against the last accepted price, within the limit inclusive', () => {
    const { state, tick } = setup({ maxJumpPct: 10 });
    tick(100, T0);
    expect(tick(110, T0 + 1)).toBeNull();
    expect(tick(121.5, T0 + 2)).toBe('absurd-jump');
    expect(tick(90, T0 + 3)).toBe('absurd-jump');
    expect(tick(99, T0 + 4)).toBeNull();
    expect(state.price).toBe(99);
  });

  it('guards every series separately', () => {
    const { guard } = setup({ maxJumpPct: 10 });
    const btc = new PriceState();
    const eth = new PriceState();
    guard.apply(btc, 64_000, T0, 'binance');
    expect(guard.apply(eth, 3100, T0, 'binance')).toBeNull();
    expect(guard.apply(eth, 64_000, T0 + 1, 'binance')).toBe('absurd-jump');
    expect(guard.apply(btc, 3100, T0 + 1, 'binance')).toBe('absurd-jump');
  });
});

describe('PriceGuard: a level beyond the guard that persists', () => {
  it('is accepted once held for both the confirmation time and ticks, and logged', () => {
    const { state, tick, logs } = setup({ jumpConfirmMs: 60_000, jumpConfirmTicks: 3 });
    tick(0.1, T0);
    expect(tick(0.2, T0 + 1000)).toBe('absurd-jump');
    expect(tick(0.2, T0 + 30_000)).toBe('absurd-jump');
    // Three ticks, but not yet for 60 s.
    expect(tick(0.2, T0 + 59_000)).toBe('absurd-jump');
    expect(state.price).toBe(0.1);
    expect(tick(0.201, T0 + 62_000)).toBeNull();
    expect(state).toMatchObject({ price: 0.201, movedAt: T0 + 62_000 });
    expect(logs).toContainEqual(
      expect.objectContaining({
        msg: 'price beyond the jump guard held long enough; accepting it as the new level',
        source: 'binance',
        price: 0.201,
        previous: 0.1,
        heldMs: 61_000,
      }),
    );
  });

  it('needs the confirmation ticks as well as the time', () => {
    const { state, tick } = setup({ jumpConfirmMs: 1000, jumpConfirmTicks: 3 });
    tick(0.1, T0);
    tick(0.2, T0 + 1);
    expect(tick(0.2, T0 + 10_000)).toBe('absurd-jump');
    expect(tick(0.2, T0 + 10_001)).toBeNull();
    expect(state.price).toBe(0.2);
  });

  it('does not let scattered absurd values confirm each other', () => {
    const { state, tick } = setup({ jumpConfirmMs: 1000, jumpConfirmTicks: 2 });
    tick(0.1, T0);
    for (let i = 1; i <= 20; i++) expect(tick(i % 2 ? 5 : 0.001, T0 + i * 1000)).toBe('absurd-jump');
    expect(state.price).toBe(0.1);
  });

  it('starts watching afresh after an accepted tick at the old level', () => {
    const { state, tick } = setup({ jumpConfirmMs: 1000, jumpConfirmTicks: 2 });
    tick(0.1, T0);
    tick(0.2, T0 + 1);
    tick(0.1, T0 + 500);
    expect(tick(0.2, T0 + 2000)).toBe('absurd-jump');
    expect(state.price).toBe(0.1);
    expect(tick(0.2, T0 + 3000)).toBeNull();
  });
});

describe('PriceState.seed', () => {
  it('starts from a known price and as_of that guards jumps and refuses older ticks', () => {
    const { state, tick } = setup({ maxJumpPct: 50 });
    state.seed(60_000, T0);
    expect(state).toMatchObject({ price: 60_000, movedAt: T0 });
    expect(tick(61_000, T0 - 1)).toBe('stale-tick');
    expect(tick(600_000, T0 + 1)).toBe('absurd-jump');
    expect(tick(60_000, T0 + 2)).toBeNull();
    expect(state.movedAt).toBe(T0);
    expect(tick(61_000, T0 + 3)).toBeNull();
    expect(state).toMatchObject({ price: 61_000, movedAt: T0 + 3 });
  });
});
