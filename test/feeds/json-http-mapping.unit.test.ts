import { Value } from 'typebox/value';
import { describe, expect, it } from 'vitest';
import {
  type JsonHttpMapping,
  JsonHttpMappingSchema,
  mappingProblems,
  marketQuoteCode,
  marketUrl,
  parseJsonHttp,
  parseJsonHttpMarket,
} from '../../src/feeds/json-http-mapping.ts';
import type { MarketRequest } from '../../src/feeds/types.ts';
import { createPairMarket, createTetherMarket, seededRandom } from '../../src/simulator/market.ts';
import { formatPrice, quoteIn } from '../../src/simulator/quoted-markets.ts';
import { panelQuote } from '../../src/simulator/wire.ts';

const AT = Date.parse('2026-03-01T10:00:00.000Z');

const btcToman: MarketRequest = { symbol: 'BTC', currency: 'toman', market: 'BTC' };
const ethToman: MarketRequest = { symbol: 'ETH', currency: 'toman', market: 'ETH' };
const btcUsdt: MarketRequest = { symbol: 'BTC', currency: 'usdt', market: 'BTC' };
const usdtToman: MarketRequest = { symbol: 'USDT', currency: 'toman', market: 'USDT' };

/** A made-up exchange's panel document: pairs like BTC-TMN in a list under data.markets. */
const panel = {
  data: {
    markets: [
      {
        pair: 'BTC-TMN',
        sell: '10234320000',
        buy: '10230000000',
        change24h: 2.15,
        updated_at: '2026-03-01T09:59:58Z',
      },
      {
        pair: 'ETH-TMN',
        sell: 356_512_000,
        buy: 356_000_000,
        change24h: '-0.8',
        updated_at: '2026-03-01T09:59:57Z',
      },
      {
        pair: 'BTC-USDT',
        sell: '97250.12',
        buy: '97240.00',
        change24h: 1.1,
        updated_at: '2026-03-01T09:59:59Z',
      },
      { pair: 'USDT-TMN', sell: '105299', buy: '105250', change24h: 0.1, updated_at: '2026-03-01T09:59:50Z' },
      { pair: 'DOGE-TMN', sell: '34150', buy: '34100', change24h: 3, updated_at: '2026-03-01T09:59:40Z' },
    ],
  },
};
const panelMapping: JsonHttpMapping = {
  quotes: 'data.markets',
  key: 'pair',
  pair: { separator: '-', suffixes: { TMN: 'toman', USDT: 'usdt' } },
  ask: 'sell',
  change: 'change24h',
  time: 'updated_at',
};

function read(document: unknown, mapping: JsonHttpMapping, markets: MarketRequest[]) {
  return parseJsonHttp(JSON.stringify(document), mapping, markets, AT);
}

describe('parseJsonHttp: where the quotes are', () => {
  it('reads a list of pairs split by a separator, with change and time', () => {
    expect(read(panel, panelMapping, [btcToman, ethToman, btcUsdt, usdtToman])).toEqual({
      kind: 'read',
      quotes: [
        {
          symbol: 'BTC',
          currency: 'toman',
          ask: 10_234_320_000,
          changePct: 2.15,
          tickTime: Date.parse('2026-03-01T09:59:58Z'),
        },
        {
          symbol: 'ETH',
          currency: 'toman',
          ask: 356_512_000,
          changePct: -0.8,
          tickTime: Date.parse('2026-03-01T09:59:57Z'),
        },
        {
          symbol: 'BTC',
          currency: 'usdt',
          ask: 97250.12,
          changePct: 1.1,
          tickTime: Date.parse('2026-03-01T09:59:59Z'),
        },
        {
          symbol: 'USDT',
          currency: 'toman',
          ask: 105_299,
          changePct: 0.1,
          tickTime: Date.parse('2026-03-01T09:59:50Z'),
        },
      ],
      rejected: [],
    });
  });

  it('reads an object keyed by symbol, in the currency the mapping names, at the document root', () => {
    const document = { BTC: { ask: '10234320000' }, ETH: { ask: 356_512_000 }, XRP: { ask: '1' } };
    const result = read(document, { ask: 'ask', currency: 'toman' }, [btcToman, ethToman]);
    expect(result).toEqual({
      kind: 'read',
      quotes: [
        { symbol: 'BTC', currency: 'toman', ask: 10_234_320_000, changePct: null, tickTime: AT },
        { symbol: 'ETH', currency: 'toman', ask: 356_512_000, changePct: null, tickTime: AT },
      ],
      rejected: [],
    });
  });

  it('reads an object keyed by anything, taking the symbol from a field of each value', () => {
    const document = { result: { '1': { name: 'btc', price: { ask: '97250.12' } } } };
    const mapping: JsonHttpMapping = { quotes: 'result', key: 'name', ask: 'price.ask', currency: 'usdt' };
    expect(read(document, mapping, [btcUsdt])).toMatchObject({
      quotes: [{ symbol: 'BTC', currency: 'usdt', ask: 97250.12 }],
      rejected: [],
    });
  });

  it('reads a list of bare symbols, with array indexes in paths', () => {
    const document = { data: [[{ s: 'ETH', p: ['356512000'] }]] };
    const mapping: JsonHttpMapping = { quotes: 'data.0', key: 's', ask: 'p.0', currency: 'toman' };
    expect(read(document, mapping, [ethToman])).toMatchObject({
      quotes: [{ symbol: 'ETH', ask: 356_512_000 }],
    });
  });

  it('asks for a symbol under the name the document uses', () => {
    const document = { XBT_IRT: { sell: '10234320000' } };
    const mapping: JsonHttpMapping = { pair: { separator: '_', suffixes: { IRT: 'toman' } }, ask: 'sell' };
    const xbt: MarketRequest = { symbol: 'BTC', currency: 'toman', market: 'XBT' };
    expect(read(document, mapping, [xbt])).toMatchObject({
      quotes: [{ symbol: 'BTC', ask: 10_234_320_000 }],
    });
  });
});

describe("parseJsonHttp: the simulator's made-up exchange", () => {
  it("reads the simulator's independent encoding of its panel document with the documented mapping", () => {
    const random = seededRandom(3);
    const market = createPairMarket('BTC', 'BTCUSDT', random, 0);
    const tetherBook = createTetherMarket(1_052_990, random, 0);
    const toman = quoteIn('BTC', market, 'toman', tetherBook);
    const usdt = quoteIn('BTC', market, 'usdt', tetherBook);
    const document = {
      data: { markets: [panelQuote(toman, 'TMN', AT, 'none'), panelQuote(usdt, 'USDT', AT, 'none')] },
    };
    expect(read(document, panelMapping, [btcToman, btcUsdt])).toEqual({
      kind: 'read',
      quotes: [
        {
          symbol: 'BTC',
          currency: 'toman',
          ask: Number(formatPrice(toman.ask)),
          changePct: Number(toman.changePct.toFixed(2)),
          tickTime: AT,
        },
        {
          symbol: 'BTC',
          currency: 'usdt',
          ask: Number(formatPrice(usdt.ask)),
          changePct: Number(usdt.changePct.toFixed(2)),
          tickTime: AT,
        },
      ],
      rejected: [],
    });
  });
});

describe('parseJsonHttp: pairs and currencies', () => {
  it('splits on the last separator, in any case: btc_irt is BTC in toman as declared', () => {
    const document = {
      markets: [
        { m: 'btc_irt', a: '10234320000' },
        { m: 'wrapped_eth_irt', a: '1' },
      ],
    };
    const mapping: JsonHttpMapping = {
      quotes: 'markets',
      key: 'm',
      pair: { separator: '_', suffixes: { irt: 'toman' } },
      ask: 'a',
    };
    const weth: MarketRequest = { symbol: 'WETH', currency: 'toman', market: 'wrapped_eth' };
    expect(read(document, mapping, [btcToman, weth])).toMatchObject({
      quotes: [
        { symbol: 'BTC', currency: 'toman', ask: 10_234_320_000 },
        { symbol: 'WETH', currency: 'toman', ask: 1 },
      ],
      rejected: [],
    });
  });

  it('splits pairs by their suffix, longest first: BTCTMN, ETHUSDT, DOGEIRR', () => {
    const document = {
      BTCTMN: { ask: '10234320000' },
      ETHUSDT: { ask: '3385.47' },
      DOGEIRR: { ask: '341500' },
    };
    const mapping: JsonHttpMapping = {
      pair: { suffixes: { TMN: 'toman', USDT: 'usdt', T: 'toman', IRR: 'rial' } },
      ask: 'ask',
    };
    const ethUsdt: MarketRequest = { symbol: 'ETH', currency: 'usdt', market: 'ETH' };
    const doge: MarketRequest = { symbol: 'DOGE', currency: 'toman', market: 'DOGE' };
    expect(read(document, mapping, [btcToman, ethUsdt, doge])).toMatchObject({
      quotes: [
        { symbol: 'BTC', currency: 'toman', ask: 10_234_320_000 },
        { symbol: 'ETH', currency: 'usdt', ask: 3385.47 },
        { symbol: 'DOGE', currency: 'toman', ask: 34_150 },
      ],
      rejected: [],
    });
  });

  it('never guesses a unit: a quote code the mapping does not declare is not read', () => {
    const document = { btcirt: { a: '1' }, ethtmn: { a: '2' } };
    const mapping: JsonHttpMapping = { pair: { suffixes: { TMN: 'toman' } }, ask: 'a' };
    expect(read(document, mapping, [btcToman, ethToman])).toEqual({
      kind: 'read',
      quotes: [{ symbol: 'ETH', currency: 'toman', ask: 2, changePct: null, tickTime: AT }],
      rejected: ['market-missing'],
    });
  });

  it('reads IRT in the unit the mapping declares for it: rial on one exchange, toman on another', () => {
    const document = { BTCIRT: { a: '102343200000' } };
    const asRial = read(document, { pair: { suffixes: { IRT: 'rial' } }, ask: 'a' }, [btcToman]);
    const asToman = read(document, { pair: { suffixes: { IRT: 'toman' } }, ask: 'a' }, [btcToman]);
    expect(asRial).toMatchObject({ quotes: [{ ask: 10_234_320_000 }] });
    expect(asToman).toMatchObject({ quotes: [{ ask: 102_343_200_000 }] });
  });

  it('turns rial into toman exactly: ÷ 10, fractions kept', () => {
    const document = { BTC: { ask: '102343200005' }, SHIB: { ask: 27.4 } };
    const shib: MarketRequest = { symbol: 'SHIB', currency: 'toman', market: 'SHIB' };
    expect(read(document, { ask: 'ask', currency: 'rial' }, [btcToman, shib])).toMatchObject({
      quotes: [
        { symbol: 'BTC', currency: 'toman', ask: 10_234_320_000.5 },
        { symbol: 'SHIB', currency: 'toman', ask: 2.74 },
      ],
    });
  });

  it('ignores markets nobody asked for and markets in other currencies', () => {
    const document = {
      markets: [
        { p: 'BTC-EUR', a: '1' },
        { p: 'BTC', a: '2' },
        { p: 'ETH-TMN', a: '3' },
      ],
    };
    const mapping: JsonHttpMapping = {
      quotes: 'markets',
      key: 'p',
      pair: { separator: '-', suffixes: { TMN: 'toman' } },
      ask: 'a',
    };
    expect(read(document, mapping, [ethToman])).toEqual({
      kind: 'read',
      quotes: [{ symbol: 'ETH', currency: 'toman', ask: 3, changePct: null, tickTime: AT }],
      rejected: [],
    });
  });

  it('takes the first entry when a document lists a market twice', () => {
    const document = [
      { s: 'BTC', a: '1' },
      { s: 'btc', a: '2' },
    ];
    expect(read(document, { key: 's', ask: 'a', currency: 'toman' }, [btcToman])).toMatchObject({
      quotes: [{ ask: 1 }],
    });
  });
});

describe('parseJsonHttp: numbers and times', () => {
  const one = (entry: Record<string, unknown>, extra: Partial<JsonHttpMapping> = {}) =>
    read({ BTC: entry }, { ask: 'ask', change: 'ch', time: 't', currency: 'toman', ...extra }, [btcToman]);

  it.each([
    ['a JSON number', 10_234_320_000.5, 10_234_320_000.5],
    ['a numeric string', '10234320000.5', 10_234_320_000.5],
    ['an exponent', '1.02343200005e10', 10_234_320_000.5],
  ])('reads the ask from %s', (_what, ask, expected) => {
    expect(one({ ask, t: AT })).toMatchObject({ quotes: [{ ask: expected }] });
  });

  it.each([
    ['epoch seconds', 1_772_359_198, Date.parse('2026-03-01T09:59:58Z')],
    ['epoch seconds as a string', '1772359198', Date.parse('2026-03-01T09:59:58Z')],
    ['epoch seconds with a fraction', 1_772_359_198.25, Date.parse('2026-03-01T09:59:58.250Z')],
    ['epoch milliseconds', 1_772_359_198_123, 1_772_359_198_123],
    ['ISO 8601 in UTC', '2026-03-01T09:59:58.123Z', Date.parse('2026-03-01T09:59:58.123Z')],
    ['ISO 8601 with an offset', '2026-03-01T13:29:58+03:30', Date.parse('2026-03-01T09:59:58Z')],
    ['ISO 8601 with a space', '2026-03-01 09:59:58Z', Date.parse('2026-03-01T09:59:58Z')],
  ])('reads the time from %s', (_what, t, expected) => {
    expect(one({ ask: '1', t })).toMatchObject({ quotes: [{ tickTime: expected }] });
  });

  it('reads the change from a number or a numeric string, and null as none', () => {
    expect(one({ ask: '1', ch: -1.25, t: AT })).toMatchObject({ quotes: [{ changePct: -1.25 }] });
    expect(one({ ask: '1', ch: '3.5', t: AT })).toMatchObject({ quotes: [{ changePct: 3.5 }] });
    expect(one({ ask: '1', ch: null, t: AT })).toMatchObject({ quotes: [{ changePct: null }] });
  });

  it('uses the receive time when the mapping names no time field', () => {
    expect(read({ BTC: { ask: '1' } }, { ask: 'ask', currency: 'toman' }, [btcToman])).toMatchObject({
      quotes: [{ tickTime: AT }],
    });
  });
});

describe('parseJsonHttp: what it rejects', () => {
  it.each([
    ['no ask', { t: AT }, 'ask-missing'],
    ['a null ask', { ask: null, t: AT }, 'ask-missing'],
    ['a word for an ask', { ask: 'soon', t: AT }, 'ask-not-a-number'],
    ['an empty ask', { ask: '', t: AT }, 'ask-not-a-number'],
    ['a hexadecimal ask', { ask: '0x10', t: AT }, 'ask-not-a-number'],
    ['an ask of Infinity', { ask: 'Infinity', t: AT }, 'ask-not-a-number'],
    ['an ask that is an object', { ask: { value: 1 }, t: AT }, 'ask-not-a-number'],
    ['a zero ask', { ask: '0', t: AT }, 'ask-not-positive'],
    ['a negative ask', { ask: -5, t: AT }, 'ask-not-positive'],
    ['a word for a change', { ask: '1', ch: 'up', t: AT }, 'invalid-change'],
    ['no time', { ask: '1' }, 'time-missing'],
    ['a time without a zone', { ask: '1', t: '2026-03-01T09:59:58' }, 'invalid-time'],
    ['a word for a time', { ask: '1', t: 'yesterday' }, 'invalid-time'],
    ['a negative time', { ask: '1', t: -1 }, 'invalid-time'],
  ])('rejects %s', (_what, entry, reason) => {
    const mapping: JsonHttpMapping = { ask: 'ask', change: 'ch', time: 't', currency: 'toman' };
    expect(read({ BTC: entry }, mapping, [btcToman])).toEqual({
      kind: 'read',
      quotes: [],
      rejected: [reason],
    });
  });

  it('rejects a requested market the document does not list, and an entry without its key', () => {
    const document = { markets: [{ pair: 'BTC-TMN', sell: '1' }, { sell: '2' }] };
    const mapping: JsonHttpMapping = {
      quotes: 'markets',
      key: 'pair',
      pair: { separator: '-', suffixes: { TMN: 'toman' } },
      ask: 'sell',
    };
    expect(read(document, mapping, [btcToman, ethToman])).toMatchObject({
      quotes: [{ symbol: 'BTC' }],
      rejected: ['key-missing', 'market-missing'],
    });
  });

  it.each([
    ['a body that is not JSON', '{"data":', { quotes: 'data', ask: 'a', currency: 'toman' }, 'invalid-json'],
    [
      'quotes that are not there',
      '{"data":{}}',
      { quotes: 'data.markets', ask: 'a', currency: 'toman' },
      'quotes-missing',
    ],
    [
      'quotes that are a number',
      '{"data":5}',
      { quotes: 'data', ask: 'a', currency: 'toman' },
      'quotes-missing',
    ],
    ['a list without a key', '[{"a":"1"}]', { ask: 'a', currency: 'toman' }, 'quotes-are-a-list-but-no-key'],
  ] as const)('finds %s unreadable', (_what, text, mapping, reason) => {
    expect(parseJsonHttp(text, mapping, [btcToman], AT)).toEqual({ kind: 'unreadable', reason });
  });
});

describe('parseJsonHttp: a mapping is data, never code', () => {
  it('looks up own properties only: prototype paths find nothing', () => {
    const document = { BTC: { ask: '1' } };
    for (const ask of ['constructor', 'toString', '__proto__', 'constructor.prototype', 'ask.length']) {
      expect(read(document, { ask, currency: 'toman' }, [btcToman])).toEqual({
        kind: 'read',
        quotes: [],
        rejected: ['ask-missing'],
      });
    }
    expect(read(document, { quotes: '__proto__', ask: 'ask', currency: 'toman' }, [btcToman])).toEqual({
      kind: 'unreadable',
      reason: 'quotes-missing',
    });
  });

  it('reads a "__proto__" key as plain data and pollutes nothing', () => {
    const text = '{"__proto__":{"polluted":"yes","ask":"7"},"BTC":{"ask":"1"}}';
    const proto: MarketRequest = { symbol: 'PROTO', currency: 'toman', market: '__PROTO__' };
    expect(parseJsonHttp(text, { ask: 'ask', currency: 'toman' }, [btcToman, proto], AT)).toMatchObject({
      quotes: [
        { symbol: 'BTC', ask: 1 },
        { symbol: 'PROTO', ask: 7 },
      ],
      rejected: [],
    });
    const yes: MarketRequest = { symbol: 'YES', currency: 'toman', market: 'YES' };
    const mapping: JsonHttpMapping = { quotes: '__proto__', key: 'polluted', ask: 'ask', currency: 'toman' };
    const nested = '{"__proto__":{"x":{"polluted":"yes","ask":"7"}}}';
    expect(parseJsonHttp(nested, mapping, [yes], AT)).toMatchObject({ quotes: [{ symbol: 'YES', ask: 7 }] });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('has a schema that accepts only the mapping fields, as plain strings', () => {
    expect(Value.Check(JsonHttpMappingSchema, panelMapping)).toBe(true);
    expect(Value.Check(JsonHttpMappingSchema, { ask: 'sell', currency: 'toman' })).toBe(true);
    expect(
      Value.Check(JsonHttpMappingSchema, { ask: 'sell', pair: { suffixes: { TMN: 'toman', IRR: 'rial' } } }),
    ).toBe(true);
    for (const bad of [
      { currency: 'toman' },
      { ask: 'a..b', currency: 'toman' },
      { ask: '', currency: 'toman' },
      { ask: 'sell', currency: 'eur' },
      { ask: 'sell', currency: 'toman', script: 'process.exit()' },
      { ask: 'sell', pair: { separator: '' } },
      { ask: 'sell', pair: { suffixes: {} } },
      { ask: 'sell', pair: { suffixes: { 'T-M': 'toman' } } },
      { ask: 'sell', pair: { regex: '(.*)TMN' } },
      { ask: { $function: 'x' }, currency: 'toman' },
    ]) {
      expect(Value.Check(JsonHttpMappingSchema, bad), JSON.stringify(bad)).toBe(false);
    }
  });
});

describe('mappingProblems', () => {
  it('asks for the currency when no pair says it, and for one of the two when both do', () => {
    expect(mappingProblems({ ask: 'sell', currency: 'toman' })).toEqual([]);
    expect(mappingProblems({ ask: 'sell', pair: { separator: '-', suffixes: { TMN: 'toman' } } })).toEqual(
      [],
    );
    expect(mappingProblems({ ask: 'sell' })).toEqual([
      { pointer: '', message: 'needs `currency` (usdt, toman or rial) or a `pair` that says it' },
    ]);
    expect(mappingProblems({ ask: 'sell', pair: { suffixes: { TMN: 'toman' } }, currency: 'toman' })).toEqual(
      [{ pointer: '/currency', message: 'the pair says the currency; remove `currency` or `pair`' }],
    );
  });
});

describe('parseJsonHttp: envelope, scale, closed markets and keys of two fields', () => {
  const list = (status: unknown) => ({ status, data: [{ s: 'BTC', a: '1', chg: -0.0065, isClosed: false }] });
  const mapping: JsonHttpMapping = {
    envelope: { status: 0 },
    quotes: 'data',
    key: 's',
    ask: 'a',
    change: 'chg',
    scale: { change: 100 },
    currency: 'toman',
  };

  it('reads a document whose envelope says it answered, and finds any other unreadable', () => {
    expect(read(list(0), mapping, [btcToman])).toMatchObject({ kind: 'read', quotes: [{ ask: 1 }] });
    for (const status of [1, '0', 'failed', null]) {
      expect(read(list(status), mapping, [btcToman])).toEqual({
        kind: 'unreadable',
        reason: 'envelope-not-ok',
      });
    }
    expect(read({ data: [] }, mapping, [btcToman])).toEqual({
      kind: 'unreadable',
      reason: 'envelope-not-ok',
    });
  });

  it("scales a change given as a fraction into percent: Excoino's −0.0065 is −0.65 %", () => {
    expect(read(list(0), mapping, [btcToman])).toMatchObject({ quotes: [{ changePct: -0.65 }] });
  });

  it('scales the ask', () => {
    const document = { BTC: { a: '97.25012' } };
    expect(read(document, { ask: 'a', currency: 'usdt', scale: { ask: 1000 } }, [btcUsdt])).toMatchObject({
      quotes: [{ ask: 97_250.12 }],
    });
  });

  it('rejects a closed or inactive market and publishes the open ones', () => {
    const document = {
      markets: [
        { s: 'BTC', a: '1', isClosed: true },
        { s: 'ETH', a: '2', isClosed: false },
      ],
    };
    const closed: JsonHttpMapping = {
      quotes: 'markets',
      key: 's',
      ask: 'a',
      currency: 'toman',
      open_when: { isClosed: false },
    };
    expect(read(document, closed, [btcToman, ethToman])).toEqual({
      kind: 'read',
      quotes: [{ symbol: 'ETH', currency: 'toman', ask: 2, changePct: null, tickTime: AT }],
      rejected: ['market-closed'],
    });
  });

  it('builds the key from two fields, the quote field naming the declared unit', () => {
    const document = {
      data: [
        { base: { en: 'btc' }, quote: { en: 'irr' }, sell: 102_343_200_000 },
        { base: { en: 'btc' }, quote: { en: 'usdt' }, sell: 97_250.12 },
        { base: { en: 'eth' }, quote: { en: 'eur' }, sell: 1 },
      ],
    };
    const twoFields: JsonHttpMapping = {
      quotes: 'data',
      key: ['base.en', 'quote.en'],
      pair: { suffixes: { IRR: 'rial', USDT: 'usdt' } },
      ask: 'sell',
    };
    expect(read(document, twoFields, [btcToman, btcUsdt, ethToman])).toMatchObject({
      quotes: [
        { symbol: 'BTC', currency: 'toman', ask: 10_234_320_000 },
        { symbol: 'BTC', currency: 'usdt', ask: 97_250.12 },
      ],
      rejected: ['market-missing'],
    });
  });
});

describe('parseJsonHttpMarket: one document per market', () => {
  const book = JSON.stringify({
    asks: [
      ['10234320000', '0.1'],
      ['10234330000', '2'],
    ],
    bids: [['1', '1']],
  });

  it("reads the best ask of a per-symbol order book at asks.0.0, in the request's unit", () => {
    expect(parseJsonHttpMarket(book, { ask: 'asks.0.0', currency: 'toman' }, btcToman, 'toman', AT)).toEqual({
      kind: 'read',
      quotes: [{ symbol: 'BTC', currency: 'toman', ask: 10_234_320_000, changePct: null, tickTime: AT }],
      rejected: [],
    });
    expect(
      parseJsonHttpMarket(book, { ask: 'asks.0.0', currency: 'rial' }, btcToman, 'rial', AT),
    ).toMatchObject({
      quotes: [{ ask: 1_023_432_000 }],
    });
  });

  it('rejects an empty order book and finds a failed envelope unreadable', () => {
    const empty = JSON.stringify({ asks: [], bids: [] });
    expect(parseJsonHttpMarket(empty, { ask: 'asks.0.0', currency: 'toman' }, btcToman, 'toman', AT)).toEqual(
      {
        kind: 'read',
        quotes: [],
        rejected: ['ask-missing'],
      },
    );
    const failed = JSON.stringify({ status: 'failed' });
    const mapping: JsonHttpMapping = { envelope: { status: 'ok' }, ask: 'asks.0.0', currency: 'toman' };
    expect(parseJsonHttpMarket(failed, mapping, btcToman, 'toman', AT)).toEqual({
      kind: 'unreadable',
      reason: 'envelope-not-ok',
    });
  });

  it('fills the URL with the market code and the quote code declared for the currency', () => {
    const mapping: JsonHttpMapping = { ask: 'asks.0.0', pair: { suffixes: { USDT: 'usdt', IRT: 'toman' } } };
    expect(marketQuoteCode(mapping, 'toman')).toEqual({ code: 'IRT', unit: 'toman' });
    expect(marketQuoteCode(mapping, 'usdt')).toEqual({ code: 'USDT', unit: 'usdt' });
    expect(marketQuoteCode({ ask: 'a', pair: { suffixes: { USDT: 'usdt' } } }, 'toman')).toBeNull();
    expect(marketUrl('https://x.example/orderbook/{symbol}_{quote}/', 'BTC', 'IRT')).toBe(
      'https://x.example/orderbook/BTC_IRT/',
    );
    expect(marketUrl('https://x.example/depth?symbol={symbol}{quote}', 'a b', 'IRT')).toBe(
      'https://x.example/depth?symbol=a%20bIRT',
    );
  });
});

describe('mappingProblems: units are declared, URLs can be filled', () => {
  it('refuses a pair without declared units, naming why', () => {
    expect(mappingProblems({ ask: 'sell', pair: { separator: '-' } })).toEqual([
      {
        pointer: '/pair',
        message: expect.stringContaining(
          'nerkh never guesses a unit (IRT is toman on Bitpin and Tabdeal, rial on Nobitex)',
        ),
      },
    ]);
  });

  it('checks a per-market URL against the mapping', () => {
    const byQuote: JsonHttpMapping = { ask: 'asks.0.0', pair: { suffixes: { IRT: 'toman' } } };
    expect(mappingProblems(byQuote, 'https://x.example/ob/{symbol}_{quote}/')).toEqual([]);
    expect(mappingProblems({ ask: 'a', currency: 'toman' }, 'https://x.example/{symbol}')).toEqual([]);
    expect(mappingProblems({ ask: 'a', currency: 'toman' }, 'https://x.example/{symbol}/{quote}')).toEqual([
      {
        pointer: '',
        message: 'the URL holds {quote}: declare the quote codes and their units in `pair.suffixes`',
      },
    ]);
    expect(mappingProblems(byQuote, 'https://x.example/{symbol}')).toEqual([
      { pointer: '', message: 'the URL names no {quote}: say the unit of every document in `currency`' },
    ]);
    expect(
      mappingProblems({ ask: 'a', key: 's', currency: 'toman' }, 'https://x.example/{symbol}?t={token}'),
    ).toEqual([
      { pointer: '', message: 'the URL may hold {symbol} and {quote} only, not {token}' },
      { pointer: '/key', message: 'with {symbol} in the URL each document is one market; remove `key`' },
    ]);
  });
});

describe('ask: { lowest, price }: a book read as a book', () => {
  // Bitpin's documented order book (test/fixtures/bitpin/), and the same asks highest first.
  const asks = [
    ['10248310000', '0.00112'],
    ['10248390000', '0.01730'],
    ['10249000000', '0.05000'],
  ];
  const lowest: JsonHttpMapping = { ask: { lowest: 'asks', price: 0 }, currency: 'toman' };
  const read = (book: unknown) => parseJsonHttpMarket(JSON.stringify(book), lowest, btcToman, 'toman', AT);

  it('publishes the lowest ask whatever the order: a reversed book is 10 248 310 000, not 10 249 000 000', () => {
    expect(read({ asks, bids: [] })).toMatchObject({ quotes: [{ ask: 10_248_310_000 }], rejected: [] });
    expect(read({ asks: [...asks].reverse(), bids: [] })).toMatchObject({
      quotes: [{ ask: 10_248_310_000 }],
      rejected: [],
    });
    // asks.0.0 on the reversed book would have published the highest ask.
    expect(
      parseJsonHttpMarket(
        JSON.stringify({ asks: [...asks].reverse() }),
        { ask: 'asks.0.0', currency: 'toman' },
        btcToman,
        'toman',
        AT,
      ),
    ).toMatchObject({ quotes: [{ ask: 10_249_000_000 }] });
  });

  it('reads entries of objects by path, and a list of one document per market', () => {
    const mapping: JsonHttpMapping = { ask: { lowest: 'result.ask', price: 'price' }, currency: 'toman' };
    const book = { result: { ask: [{ price: '82100' }, { price: '82066' }, { price: 82_090 }] } };
    expect(parseJsonHttpMarket(JSON.stringify(book), mapping, usdtToman, 'toman', AT)).toMatchObject({
      quotes: [{ symbol: 'USDT', ask: 82_066 }],
    });
    const listed: JsonHttpMapping = {
      quotes: 'markets',
      key: 'symbol',
      ask: { lowest: 'asks', price: '0' },
      currency: 'toman',
    };
    const document = {
      markets: [
        {
          symbol: 'BTC',
          asks: [
            ['11', '1'],
            ['10', '1'],
          ],
        },
      ],
    };
    expect(parseJsonHttp(JSON.stringify(document), listed, [btcToman], AT)).toMatchObject({
      quotes: [{ symbol: 'BTC', ask: 10 }],
    });
  });

  it('publishes nothing from an empty book, a book that is not a list, or one with a price that is not a number', () => {
    expect(read({ asks: [], bids: [['1', '1']] })).toEqual({
      kind: 'read',
      quotes: [],
      rejected: ['book-empty'],
    });
    expect(read({ asks: { price: '1' } })).toEqual({
      kind: 'read',
      quotes: [],
      rejected: ['book-not-a-list'],
    });
    expect(read({ bids: [] })).toEqual({ kind: 'read', quotes: [], rejected: ['ask-missing'] });
    expect(
      read({
        asks: [
          ['10248310000', '1'],
          ['oops', '1'],
        ],
      }),
    ).toEqual({
      kind: 'read',
      quotes: [],
      rejected: ['ask-not-a-number'],
    });
    expect(read({ asks: [['0', '1']] })).toEqual({
      kind: 'read',
      quotes: [],
      rejected: ['ask-not-positive'],
    });
  });

  it('is a form the schema knows, and nothing else is', () => {
    expect(Value.Check(JsonHttpMappingSchema, lowest)).toBe(true);
    expect(
      Value.Check(JsonHttpMappingSchema, { ask: { lowest: 'asks', first: true }, currency: 'toman' }),
    ).toBe(false);
  });
});
