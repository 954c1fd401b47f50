import { Type } from 'typebox';
import { SnapshotDraftSchema } from '../../domain/rates.ts';

/**
 * The rates response (content/docs.md "Response") as a TypeBox schema: it documents the API in OpenAPI and tests check
 * real responses against it, so the description and the bytes cannot drift apart.
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
