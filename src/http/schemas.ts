import { Type } from 'typebox';
import { SnapshotDraftSchema } from '../domain/rates.ts';

/**
 * Response shapes (docs/architecture.md#the-rates-response) as TypeBox schemas: they document the API in OpenAPI and tests check
 * real responses against them, so the description and the bytes cannot drift apart.
 */
const DateTime = Type.String({ format: 'date-time' });

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

const CheckStatus = Type.Union([Type.Literal('pass'), Type.Literal('warn'), Type.Literal('fail')]);

/** One entry of a `checks` array (draft-inadarei-api-health-check §4.11 and §5). */
export const HealthCheckSchema = Type.Object(
  {
    componentType: Type.String(),
    status: CheckStatus,
    time: Type.Union([DateTime, Type.Null()]),
    observedValue: Type.Union([Type.Number(), Type.String(), Type.Null()]),
    observedUnit: Type.Optional(Type.String()),
    output: Type.String(),
    coins: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          "A source's check: rows of the rates it prices now (a fallback waiting serves 0, and only warns when down)",
      }),
    ),
  },
  { additionalProperties: true },
);

export const HealthSchema = Type.Object(
  {
    status: CheckStatus,
    version: Type.String(),
    releaseId: Type.String(),
    serviceId: Type.String(),
    description: Type.String(),
    output: Type.Optional(Type.String()),
    updated_at: Type.Union([DateTime, Type.Null()], { description: 'Commit time of the served snapshot' }),
    age_seconds: Type.Union([Type.Integer(), Type.Null()], { description: 'Age of the served snapshot' }),
    next_refresh_at: Type.Union([DateTime, Type.Null()], { description: 'When the next snapshot is due' }),
    count: Type.Union([Type.Integer(), Type.Null()], { description: 'Currencies in the served snapshot' }),
    checks: Type.Record(Type.String(), Type.Array(HealthCheckSchema)),
  },
  {
    additionalProperties: false,
    description: 'draft-inadarei-api-health-check response',
    examples: [
      {
        status: 'pass',
        version: '1',
        releaseId: '0.1.0',
        serviceId: 'nerkh',
        description: 'nerkh: current sell rates of digital currencies in tether and toman',
        updated_at: '2025-06-01T10:20:00.000Z',
        age_seconds: 242,
        next_refresh_at: '2025-06-01T10:30:00.000Z',
        count: 155,
        checks: {
          'snapshot:age': [
            {
              componentType: 'datastore',
              status: 'pass',
              time: '2025-06-01T10:20:00.000Z',
              observedValue: 242,
              observedUnit: 's',
              output: 'Snapshot is 242 s old; refreshed every 600 s.',
            },
          ],
          'nobitex:connection': [
            {
              componentType: 'component',
              status: 'pass',
              time: '2025-06-01T10:23:58.204Z',
              observedValue: 'up',
              output: 'polling every 10 s',
              coins: 1,
            },
          ],
        },
      },
    ],
  },
);
