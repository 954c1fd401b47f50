import { describe, expect, it } from 'vitest';
import { parseRestTicker, parseTickerFrame } from '../../src/feeds/binance-ticker.ts';
import { fixture } from '../support/fixtures.ts';

const pairs = new Set(['BTCUSDT', 'ETHUSDT']);
const event = { e: '24hrTicker', E: 1_700_000_000_123, s: 'BTCUSDT', P: '-1.234', a: '97123.45000000' };
const frame = (data: unknown, stream = 'btcusdt@ticker') => JSON.stringify({ stream, data });

describe("Binance's documented answers (test/fixtures/binance)", () => {
  const bnb = new Set(['BNBBTC']);

  it('reads the documented ticker event: ask "0.0026", change 250.00 %, event time E', () => {
    const text = fixture('binance/ticker-stream-bnbbtc.json');
    const quote = { pair: 'BNBBTC', ask: 0.0026, changePct: 250, tickTime: 1_672_515_782_136 };
    expect(parseTickerFrame(text, bnb)).toEqual({ kind: 'quote', quote });
    expect(
      parseTickerFrame(JSON.stringify({ stream: 'bnbbtc@ticker', data: JSON.parse(text) }), bnb),
    ).toEqual({
      kind: 'quote',
      quote,
    });
  });

  it('reads the documented REST 24 h ticker: askPrice "4.00000200", −95.960 %, at closeTime', () => {
    const [item] = JSON.parse(fixture('binance/ticker-24hr-full-bnbbtc.json')) as unknown[];
    expect(parseRestTicker(item, bnb, 0)).toEqual({
      kind: 'quote',
      quote: { pair: 'BNBBTC', ask: 4.000002, changePct: -95.96, tickTime: 1_499_869_899_040 },
    });
  });

  it('knows serverShutdown, raw and combined, as an announcement, not a rejected tick', () => {
    for (const file of ['binance/server-shutdown-raw.json', 'binance/server-shutdown-combined.json']) {
      expect(parseTickerFrame(fixture(file), bnb)).toEqual({
        kind: 'shutdown',
        eventTime: 1_770_123_456_789,
      });
    }
  });
});

describe('parseTickerFrame', () => {
  it('reads a, E and P from a combined-stream frame and from a raw payload', () => {
    const quote = { pair: 'BTCUSDT', ask: 97123.45, changePct: -1.234, tickTime: 1_700_000_000_123 };
    expect(parseTickerFrame(frame(event), pairs)).toEqual({ kind: 'quote', quote });
    expect(parseTickerFrame(JSON.stringify(event), pairs)).toEqual({ kind: 'quote', quote });
  });

  it('keeps every digit of the quoted ask', () => {
    const result = parseTickerFrame(frame({ ...event, a: '0.00000123' }), pairs);
    expect(result).toMatchObject({ quote: { ask: 0.00000123 } });
  });

  it('treats a missing P as an unknown change, not as zero', () => {
    const { P: _omitted, ...withoutChange } = event;
    expect(parseTickerFrame(frame(withoutChange), pairs)).toMatchObject({ quote: { changePct: null } });
  });

  it.each([
    ['a cut-off frame', '{"stream":"btcusdt@ticker","data":{"e":', 'invalid-json'],
    ['an array', '[]', 'not-an-object'],
    ['an envelope without data', JSON.stringify({ stream: 'btcusdt@ticker' }), 'malformed-envelope'],
    ['another event type', frame({ ...event, e: 'trade' }), 'unexpected-event'],
    ['a pair nobody asked for', frame({ ...event, s: 'DOGEUSDT' }, 'dogeusdt@ticker'), 'unknown-pair'],
    ['a stream/symbol mismatch', frame({ ...event, s: 'ETHUSDT' }), 'stream-symbol-mismatch'],
    ['a missing ask', frame({ ...event, a: undefined }), 'ask-missing'],
    ['a numeric ask', frame({ ...event, a: 97123.45 }), 'ask-not-a-string'],
    ['a NaN ask', frame({ ...event, a: 'NaN' }), 'ask-not-a-number'],
    ['an exponent ask', frame({ ...event, a: '1e5' }), 'ask-not-a-number'],
    ['an empty ask', frame({ ...event, a: '' }), 'ask-not-a-number'],
    ['a zero ask', frame({ ...event, a: '0.00000000' }), 'ask-not-positive'],
    ['a negative ask', frame({ ...event, a: '-97123.45' }), 'ask-not-positive'],
    ['a fractional event time', frame({ ...event, E: 1.5 }), 'invalid-event-time'],
    ['a string event time', frame({ ...event, E: '1700000000123' }), 'invalid-event-time'],
    ['a NaN change', frame({ ...event, P: 'NaN' }), 'invalid-change-pct'],
  ])('rejects %s', (_what, text, reason) => {
    expect(parseTickerFrame(text, pairs)).toEqual({ kind: 'rejected', reason });
  });

  it('recognises subscription replies and error replies as control messages', () => {
    expect(parseTickerFrame('{"result":null,"id":1}', pairs)).toEqual({ kind: 'control', error: null });
    expect(parseTickerFrame('{"error":{"code":2,"msg":"Invalid request"},"id":1}', pairs)).toMatchObject({
      kind: 'control',
      error: expect.stringContaining('Invalid request'),
    });
  });
});

describe('parseRestTicker', () => {
  const ticker = {
    symbol: 'ETHUSDT',
    askPrice: '3385.47000000',
    priceChangePercent: '2.100',
    closeTime: 1_700_000_000_000,
  };

  it('reads askPrice, priceChangePercent and closeTime', () => {
    expect(parseRestTicker(ticker, pairs, 5)).toEqual({
      kind: 'quote',
      quote: { pair: 'ETHUSDT', ask: 3385.47, changePct: 2.1, tickTime: 1_700_000_000_000 },
    });
  });

  it('falls back to now without a closeTime, and rejects a bad askPrice', () => {
    const { closeTime: _omitted, ...withoutTime } = ticker;
    expect(parseRestTicker(withoutTime, pairs, 5)).toMatchObject({ quote: { tickTime: 5 } });
    expect(parseRestTicker({ ...ticker, askPrice: '-1' }, pairs, 5)).toEqual({
      kind: 'rejected',
      reason: 'ask-not-positive',
    });
  });
});
