import { type Static, Type } from 'typebox';

/**
 * The published shapes, defined once as TypeBox schemas (plain data, so the domain stays
 * pure): the types below are derived from them, the HTTP edge documents and checks responses with
 * them, so the stored, served and described shapes cannot drift apart.
 */

/** One coin's rate record. */
export const RateRowSchema = Type.Object(
  {
    symbol: Type.String({ description: 'Currency ticker symbol', examples: ['BTC'] }),
    name_fa: Type.String({ description: 'Persian name of the currency', examples: ['بیت‌کوین'] }),
    sell_usdt: Type.Number({ description: 'Sell rate in tether (USDT)', exclusiveMinimum: 0 }),
    sell_irt: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
      description: 'Sell rate in toman (not rial); null when the tether rate is unknown',
    }),
    change_24h: Type.Union([Type.Number(), Type.Null()], { description: 'Percentage change over 24 hours' }),
    as_of: Type.String({
      format: 'date-time',
      description: "Time of this currency's last price move; judge freshness by this, not by updated_at",
    }),
    url: Type.String({ format: 'uri', description: 'Page of the currency' }),
  },
  { additionalProperties: false },
);

export type RateRow = Static<typeof RateRowSchema>;

/** What the collector commits; the store adds the id. */
export const SnapshotDraftSchema = Type.Object({
  // The moment of the commit.
  updated_at: Type.String({
    format: 'date-time',
    description: 'When the whole data set was last refreshed; not the time of any single currency',
  }),
  // The sources that priced it, in the order of the sources file.
  source: Type.String({
    description: "Names of the sources that priced the rates, joined with '+', e.g. binance+nobitex",
    examples: ['binance+nobitex'],
  }),
  // Null while the toman source has not answered.
  usdt_irt: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
    description: 'Sell rate of tether in toman',
  }),
  // Sorted by symbol.
  rates: Type.Array(RateRowSchema),
});

export type SnapshotDraft = Static<typeof SnapshotDraftSchema>;

/**
 * The rates response (content/docs.md "Response"): the served snapshot's fields, with
 * the response's own. It documents the API in OpenAPI and tests check real responses against it, so
 * the description and the bytes cannot drift apart.
 */
export const RatesResponseSchema = Type.Object(
  {
    source: Type.String({ description: 'Origin label of the data' }),
    side: Type.Literal('sell', { description: 'Always sell: what a user pays to buy the currency' }),
    usdt_irt: SnapshotDraftSchema.properties.usdt_irt,
    updated_at: SnapshotDraftSchema.properties.updated_at,
    disclaimer: Type.String({ description: 'The rates are informational' }),
    count: Type.Integer({ minimum: 0, description: 'Number of items in rates' }),
    rates: SnapshotDraftSchema.properties.rates,
  },
  {
    additionalProperties: false,
    examples: [
      {
        source: 'binance+nobitex',
        side: 'sell',
        usdt_irt: 61250,
        updated_at: '2025-06-01T10:20:00.000Z',
        disclaimer:
          'Rates are informational only. The final rate of an order is fixed when the order is placed in the user panel.',
        count: 2,
        rates: [
          {
            symbol: 'BTC',
            name_fa: 'بیت‌کوین',
            sell_usdt: 67321.45,
            sell_irt: 4123438813,
            change_24h: 1.84,
            as_of: '2025-06-01T10:19:42.118Z',
            url: 'https://rates.example.ir/coins/BTC',
          },
          {
            symbol: 'USDT',
            name_fa: 'تتر',
            sell_usdt: 1,
            sell_irt: 61250,
            change_24h: null,
            as_of: '2025-06-01T10:18:05.000Z',
            url: 'https://rates.example.ir/coins/USDT',
          },
        ],
      },
    ],
  },
);

export type RatesResponse = Static<typeof RatesResponseSchema>;

export interface Snapshot extends SnapshotDraft {
  /** Monotonic commit number; the HTTP edge derives its ETag from it. */
  id: number;
}
