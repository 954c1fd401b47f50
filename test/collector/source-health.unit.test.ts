import { describe, expect, it } from 'vitest';
import { SourceHealthRegistry } from '../../src/collector/source-health.ts';
import { createLogger } from '../../src/logger.ts';

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

interface LogLine {
  level: number;
  msg: string;
  source?: string;
  rejected?: Record<string, number>;
}

function setup(sources: readonly string[] = ['binance', 'nobitex'], staleMs = 30_000) {
  const logs: LogLine[] = [];
  const registry = new SourceHealthRegistry({
    sources,
    staleMs,
    logger: createLogger('debug', { write: (line: string) => logs.push(JSON.parse(line) as LogLine) }),
  });
  const healthOf = (source: string, now: number) => registry.report(now).find((s) => s.source === source);
  return { registry, logs, healthOf };
}

describe('SourceHealthRegistry: which sources it lists', () => {
  it('lists the sources named up front, in order, as down before they first connect', () => {
    const { registry } = setup(['wallex', 'binance', 'nobitex']);
    expect(registry.report(T0)).toEqual(
      ['wallex', 'binance', 'nobitex'].map((source) => ({
        source,
        state: 'down',
        detail: 'not connected yet',
        last_message_at: null,
        rejected: 0,
        reconnects: 0,
        coins: 0,
      })),
    );
    expect(registry.rejectedCounts()).toEqual({ wallex: {}, binance: {}, nobitex: {} });
  });

  it('tracks a source not named up front from its first report on, after the named ones', () => {
    const { registry } = setup(['binance']);
    registry.rejected('json-http', 'invalid-json');
    registry.connectionState('wallex', 'open', 'polling api.wallex.ir');
    expect(registry.report(T0).map((s) => s.source)).toEqual(['binance', 'json-http', 'wallex']);
    expect(registry.rejectedCounts()).toEqual({
      binance: {},
      'json-http': { 'invalid-json': 1 },
      wallex: {},
    });
  });
});

describe('SourceHealthRegistry: state', () => {
  it('is up while open with a valid message within the stale time, degraded after it', () => {
    const { registry, healthOf } = setup(['binance'], 30_000);
    registry.connectionState('binance', 'open', 'streaming 3 pairs');
    expect(healthOf('binance', T0)).toMatchObject({
      state: 'degraded',
      detail: 'streaming 3 pairs; no valid message yet',
      last_message_at: null,
    });
    registry.heard('binance', T0);
    expect(healthOf('binance', T0 + 30_000)).toMatchObject({
      state: 'up',
      detail: 'streaming 3 pairs',
      last_message_at: iso(T0),
    });
    expect(healthOf('binance', T0 + 45_600)).toMatchObject({
      state: 'degraded',
      detail: 'streaming 3 pairs; no valid message for 46 s',
    });
  });

  it('is degraded while reconnecting with recent prices, and down once they are stale or it is closed', () => {
    const { registry, healthOf } = setup(['binance'], 30_000);
    registry.connectionState('binance', 'open', 'streaming');
    registry.heard('binance', T0);
    for (const state of ['connecting', 'stalled', 'backoff'] as const) {
      registry.connectionState('binance', state, `${state} now`);
      expect(healthOf('binance', T0 + 30_000)).toMatchObject({ state: 'degraded', detail: `${state} now` });
      expect(healthOf('binance', T0 + 30_001)).toMatchObject({ state: 'down', detail: `${state} now` });
    }
    registry.connectionState('binance', 'closed', 'stopped');
    expect(healthOf('binance', T0 + 1)).toMatchObject({ state: 'down', detail: 'stopped' });
  });

  it('is down while the source refuses us, however recent its last message, with its reason', () => {
    const { registry, healthOf } = setup(['binance'], 30_000);
    registry.connectionState('binance', 'open', 'streaming');
    registry.heard('binance', T0);
    const refusal = 'HTTP 451: Service unavailable from a restricted location';
    registry.connectionState('binance', 'refused', refusal);
    expect(healthOf('binance', T0 + 1)).toMatchObject({
      state: 'down',
      detail: refusal,
      last_message_at: iso(T0),
    });
    registry.connectionState('binance', 'open', 'streaming');
    registry.heard('binance', T0 + 2);
    expect(healthOf('binance', T0 + 2)).toMatchObject({ state: 'up', reconnects: 1 });
  });

  it('reports how many rows each source prices, 0 for a source not counted', () => {
    const { registry } = setup(['binance', 'nobitex', 'wallex']);
    const report = registry.report(
      T0,
      new Map([
        ['binance', 150],
        ['nobitex', 1],
      ]),
    );
    expect(report.map(({ source, coins }) => [source, coins])).toEqual([
      ['binance', 150],
      ['nobitex', 1],
      ['wallex', 0],
    ]);
  });

  it('counts a reconnect each time an open source opens again, not its first open', () => {
    const { registry, healthOf } = setup(['binance']);
    registry.connectionState('binance', 'connecting', 'connecting');
    registry.connectionState('binance', 'open', 'streaming');
    registry.connectionState('binance', 'open', 'streaming, rotated');
    expect(healthOf('binance', T0)?.reconnects).toBe(0);
    registry.connectionState('binance', 'backoff', 'reconnecting in 4 s');
    registry.connectionState('binance', 'open', 'streaming');
    registry.connectionState('binance', 'stalled', 'no data for 30 s');
    registry.connectionState('binance', 'open', 'streaming');
    expect(healthOf('binance', T0)?.reconnects).toBe(2);
  });

  it('keeps each source apart', () => {
    const { registry, healthOf } = setup(['binance', 'nobitex'], 30_000);
    registry.connectionState('binance', 'open', 'streaming');
    registry.connectionState('nobitex', 'open', 'polling');
    registry.heard('nobitex', T0);
    registry.rejected('binance', 'absurd-jump');
    expect(healthOf('nobitex', T0)).toMatchObject({ state: 'up', rejected: 0 });
    expect(healthOf('binance', T0)).toMatchObject({ state: 'degraded', rejected: 1, last_message_at: null });
  });
});

describe('SourceHealthRegistry: rejected ticks', () => {
  it('counts them per source and reason', () => {
    const { registry, healthOf } = setup();
    registry.rejected('binance', 'absurd-jump');
    registry.rejected('binance', 'absurd-jump');
    registry.rejected('binance', 'unknown-pair');
    registry.rejected('nobitex', 'best-sell-missing');
    expect(registry.rejectedCounts()).toEqual({
      binance: { 'absurd-jump': 2, 'unknown-pair': 1 },
      nobitex: { 'best-sell-missing': 1 },
    });
    expect(healthOf('binance', T0)?.rejected).toBe(3);
    expect(healthOf('nobitex', T0)?.rejected).toBe(1);
  });

  it('logs a summary of the rejections since the last one, per source, and nothing when none are new', () => {
    const { registry, logs } = setup();
    const summaries = () => logs.filter((line) => line.msg === 'rejected bad ticks');
    registry.rejected('binance', 'absurd-jump');
    registry.rejected('binance', 'absurd-jump');
    registry.rejected('nobitex', 'not-positive');
    registry.logNewRejections();
    expect(summaries()).toEqual([
      expect.objectContaining({ level: 40, source: 'binance', rejected: { 'absurd-jump': 2 } }),
      expect.objectContaining({ level: 40, source: 'nobitex', rejected: { 'not-positive': 1 } }),
    ]);

    registry.logNewRejections();
    expect(summaries()).toHaveLength(2);

    registry.rejected('binance', 'absurd-jump');
    registry.rejected('binance', 'stale-tick');
    registry.logNewRejections();
    expect(summaries().slice(2)).toEqual([
      expect.objectContaining({ source: 'binance', rejected: { 'absurd-jump': 1, 'stale-tick': 1 } }),
    ]);
    expect(registry.rejectedCounts().binance).toEqual({ 'absurd-jump': 3, 'stale-tick': 1 });
  });
});
