import { describe, expect, it } from 'vitest';
import { guardedListener } from '../../src/feeds/guarded-listener.ts';
import type { FeedListener } from '../../src/feeds/types.ts';
import { createLogger } from '../../src/logger.ts';
import { RecordingListener } from '../support/feeds.ts';

function capturingLogger(): { logger: ReturnType<typeof createLogger>; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('error', { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

describe('guardedListener', () => {
  it('passes every call through to the listener', () => {
    const recording = new RecordingListener();
    const listener = guardedListener(recording, capturingLogger().logger, 'binance');
    const btc = {
      source: 'binance',
      symbol: 'BTC',
      currency: 'usdt',
      ask: 97_000,
      changePct: 1.5,
      tickTime: 1,
    } as const;
    const tether = {
      source: 'nobitex',
      symbol: 'USDT',
      currency: 'toman',
      ask: 105_299,
      changePct: null,
      tickTime: 2,
    } as const;
    listener.quote(btc);
    listener.quote(tether);
    listener.rejected('binance', 'ask-missing');
    listener.connectionState('binance', 'open', 'connected');
    expect(recording.quotes).toEqual([btc, tether]);
    expect(recording.rejections).toEqual([{ source: 'binance', reason: 'ask-missing' }]);
    expect(recording.states).toEqual([{ source: 'binance', state: 'open', detail: 'connected' }]);
  });

  it('logs a listener that throws instead of letting it unwind into the feed', () => {
    const failing: FeedListener = {
      quote() {
        throw new Error('store is full');
      },
      rejected() {},
      connectionState() {
        throw new Error('collector stopped');
      },
    };
    const { logger, lines } = capturingLogger();
    const listener = guardedListener(failing, logger, 'nobitex');
    expect(() =>
      listener.quote({
        source: 'nobitex',
        symbol: 'BTC',
        currency: 'usdt',
        ask: 1,
        changePct: null,
        tickTime: 1,
      }),
    ).not.toThrow();
    expect(() => listener.connectionState('nobitex', 'backoff', 'HTTP 503')).not.toThrow();
    expect(lines.map((line) => [line.msg, line.source, (line.err as { message: string }).message])).toEqual([
      ['nobitex: feed listener threw', 'nobitex', 'store is full'],
      ['nobitex: feed listener threw', 'nobitex', 'collector stopped'],
    ]);
  });
});
