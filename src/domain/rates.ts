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
    // Additions to v1 after the spec's fields, so the spec's order is kept (docs/sources.md
    // "What is published").
    source: Type.String({
      description:
        "Name of the source, as the operator's sources file names it, whose quote of this currency priced the row; for USDT, the source of tether's toman rate",
      examples: ['binance'],
    }),
    tether_source: Type.Union([Type.String(), Type.Null()], {
      description:
        "The source of the tether rate usdt_irt (the USDT row's source) when one of this row's prices was converted through it: sell_irt = round(sell_usdt × usdt_irt) for a currency priced in tether, sell_usdt = sell_irt ÷ usdt_irt for one priced in toman by a source that does not quote it in tether. null when nothing was converted: the row's source quoted both prices, sell_irt is null, or the row is USDT's",
      examples: ['nobitex'],
    }),
  },
  { additionalProperties: false },
);

export type RateRow = Static<typeof RateRowSchema>;

/**
 * A stored snapshot's rows as served: a snapshot committed by a nerkh older than the per-row
 * sources has rows without `source` and `tether_source`. Which source priced each row was not
 * recorded then, so such a row names the snapshot's label (the sources that priced the snapshot)
 * and no conversion (docs/sources.md "What is published"). The fields are added in place, after
 * `url`, which is where the schema puts them, so the served order is the same. Rows that have
 * them are left as they are: the stores call this on every read of a snapshot.
 */
export function withRowSources<T extends SnapshotDraft>(snapshot: T): T {
  for (const row of snapshot.rates as Array<Partial<RateRow>>) {
    if (row.source === undefined) row.source = snapshot.source;
    if (row.tether_source === undefined) row.tether_source = null;
  }
  return snapshot;
}

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
            source: 'binance',
            tether_source: 'nobitex',
          },
          {
            symbol: 'USDT',
            name_fa: 'تتر',
            sell_usdt: 1,
            sell_irt: 61250,
            change_24h: null,
            as_of: '2025-06-01T10:18:05.000Z',
            url: 'https://rates.example.ir/coins/USDT',
            source: 'nobitex',
            tether_source: null,
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
