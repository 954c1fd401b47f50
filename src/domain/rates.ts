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

export interface Snapshot extends SnapshotDraft {
  /** Monotonic commit number; the HTTP edge derives its ETag from it. */
  id: number;
}
