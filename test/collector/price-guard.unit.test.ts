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
    maxDeviationPct: 5,
    staleMs: 120_000,
    logger: createLogger('debug', { write: (line: string) => logs.push(JSON.parse(line) as LogLine) }),
  });
  const state = new PriceState();
  // The clock follows the tick times here: each quote arrives as it is made.
  const tick = (price: number, tickTime: number) => guard.apply(state, price, tickTime, 'binance', tickTime);
  return { guard, state, tick, logs };
}

/** Two or more sources' series of one coin, each the others' peers, as the routing links them. */
function sources(guard: PriceGuard, ...names: string[]) {
  const states = names.map(() => new PriceState());
  for (const state of states) state.peers = states.filter((other) => other !== state);
  const tick = (index: number, price: number, at: number) =>
    guard.apply(states[index] as PriceState, price, at, names[index] as string, at);
  return { states, tick };
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
    expect(tick(640_000, T0 + 5)).toBe('unit-held');
    expect(tick(1, T0 + 6)).toBe('unit-held');
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
    guard.apply(btc, 64_000, T0, 'binance', T0);
    expect(guard.apply(eth, 3100, T0, 'binance', T0)).toBeNull();
    expect(guard.apply(eth, 3500, T0 + 1, 'binance', T0 + 1)).toBe('absurd-jump');
    expect(guard.apply(btc, 64_100, T0 + 1, 'binance', T0 + 1)).toBeNull();
    expect(btc.price).toBe(64_100);
    expect(eth.price).toBe(3100);
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
    for (let i = 1; i <= 20; i++) expect(tick(i % 2 ? 0.16 : 0.04, T0 + i * 1000)).toBe('absurd-jump');
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
    expect(tick(600_000, T0 + 1)).toBe('unit-held');
    expect(tick(60_000, T0 + 2)).toBeNull();
    expect(state.movedAt).toBe(T0);
    expect(tick(61_000, T0 + 3)).toBeNull();
    expect(state).toMatchObject({ price: 61_000, movedAt: T0 + 3 });
  });
});

describe('PriceGuard: a unit-sized level (×10 or more, ÷10 or less)', () => {
  it.each([
    ['×10, rial read as toman', 10],
    ['÷10, toman read as rial', 0.1],
    ['×1,000, a per-1,000 market read per coin', 1000],
  ])('is never accepted on time alone: %s, held for hours over hundreds of ticks', (_name, factor) => {
    const { state, tick } = setup({ jumpConfirmMs: 1000, jumpConfirmTicks: 2 });
    tick(0.000024, T0);
    for (let i = 1; i <= 600; i++) expect(tick(0.000024 * factor, T0 + i * 30_000)).toBe('unit-held');
    expect(state).toMatchObject({ price: 0.000024, movedAt: T0 });
    expect(state.held).toMatchObject({
      price: 0.000024 * factor,
      reference: 0.000024,
      reason: 'own-price',
      since: T0 + 30_000,
    });
  });

  it('ends the hold when the source quotes its accepted level again', () => {
    const { state, tick } = setup();
    tick(64_000, T0);
    expect(tick(640_000, T0 + 1000)).toBe('unit-held');
    expect(tick(64_050, T0 + 2000)).toBeNull();
    expect(state).toMatchObject({ price: 64_050, held: null, releasedAt: T0 + 2000 });
  });

  it('is accepted at once when another source quotes the same level, and that source with it', () => {
    const guard = setup().guard;
    const { states, tick } = sources(guard, 'nobitex', 'wallex');
    const [nobitex, wallex] = states as [PriceState, PriceState];
    tick(0, 1.5, T0);
    tick(1, 1.51, T0);
    expect(tick(0, 1500, T0 + 1000)).toBe('unit-held');
    expect(nobitex.held).not.toBeNull();
    // The second source quoting the level within the deviation limit confirms it: both move.
    expect(tick(1, 1520, T0 + 2000)).toBeNull();
    expect(wallex).toMatchObject({ price: 1520, movedAt: T0 + 2000 });
    expect(nobitex).toMatchObject({ price: 1500, movedAt: T0 + 1000, held: null });
  });

  it('is not confirmed by a source whose quote is stale or outside the deviation limit', () => {
    const guard = setup().guard;
    const { states, tick } = sources(guard, 'nobitex', 'wallex');
    tick(0, 1.5, T0);
    tick(1, 1.5, T0);
    expect(tick(1, 15.1, T0 + 1000)).toBe('unit-held');
    // Wallex's 15.1 was seen 121 s before: too old to confirm.
    expect(tick(0, 15, T0 + 122_000)).toBe('unit-held');
    // 16.5 is 10 % from nobitex's 15, beyond the 5 % deviation limit.
    expect(tick(1, 16.5, T0 + 123_000)).toBe('unit-held');
    expect(states.map((state) => state.price)).toEqual([1.5, 1.5]);
  });

  it("holds a source's first price a unit-sized factor away from the sources in line", () => {
    const guard = setup().guard;
    const { states, tick } = sources(guard, 'binance', 'nobitex', 'wallex');
    tick(0, 0.000024, T0);
    expect(tick(1, 0.024, T0 + 1000)).toBe('unit-held');
    expect((states[1] as PriceState).held).toMatchObject({ reason: 'other-sources', reference: 0.000024 });
    // A held source is no reference: wallex's per-coin price is checked against binance alone.
    expect(tick(2, 0.0000241, T0 + 2000)).toBeNull();
  });

  it('checks a first price against a price restored at start', () => {
    const guard = setup().guard;
    const { states, tick } = sources(guard, 'binance', 'nobitex');
    (states[0] as PriceState).seed(64_000, T0 - 3_600_000);
    expect(tick(1, 640_000, T0)).toBe('unit-held');
    expect(tick(1, 64_100, T0 + 1000)).toBeNull();
  });
});

describe('PriceGuard: a real move two sources agree on', () => {
  it('is published at once, whatever its size: −60 % in both sources', () => {
    const guard = setup({ jumpConfirmMs: 300_000, jumpConfirmTicks: 5 }).guard;
    const { states, tick } = sources(guard, 'binance', 'nobitex');
    const [binance, nobitex] = states as [PriceState, PriceState];
    tick(0, 64_000, T0);
    tick(1, 64_100, T0);
    expect(tick(0, 25_600, T0 + 1000)).toBe('absurd-jump');
    expect(tick(1, 25_650, T0 + 3000)).toBeNull();
    expect(nobitex).toMatchObject({ price: 25_650, movedAt: T0 + 3000 });
    expect(binance).toMatchObject({ price: 25_600, movedAt: T0 + 1000, candidate: 0 });
  });

  it("keeps the time confirmation for a large move in a coin's only source", () => {
    const { state, tick } = setup({ jumpConfirmMs: 300_000, jumpConfirmTicks: 5 });
    tick(64_000, T0);
    // Five ticks and 300 s from the first at the new level, not before.
    for (let i = 1; i <= 10; i++) expect(tick(25_600, T0 + i * 30_000)).toBe('absurd-jump');
    expect(tick(25_600, T0 + 11 * 30_000)).toBeNull();
    expect(state.price).toBe(25_600);
  });
});

describe('PriceGuard.acceptHeld: the operator accepts a held level', () => {
  it('accepts the level named, within the deviation limit, and nothing else', () => {
    const { guard, state, tick } = setup();
    tick(0.000024, T0);
    expect(guard.acceptHeld(state, 0.024)).toBe(false);
    tick(0.024, T0 + 1000);
    tick(0.0241, T0 + 2000);
    expect(guard.acceptHeld(state, 0.03)).toBe(false);
    expect(state.held).not.toBeNull();
    expect(guard.acceptHeld(state, 0.024)).toBe(true);
    expect(state).toMatchObject({ price: 0.0241, movedAt: T0 + 2000, held: null });
    expect(tick(0.02405, T0 + 3000)).toBeNull();
  });
});
