import { type Static, Type } from 'typebox';

/**
 * The health report both the API (`/v1/health`) and the website (`/status`) show. Its body is the
 * `/v1/health` response as a TypeBox schema: it documents the endpoint in OpenAPI and tests
 * check real responses against it.
 */
const DateTime = Type.String({ format: 'date-time' });

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

/** The judgement of the service's health: what `/v1/health` answers and the status page shows. */
export interface HealthReport {
  /** 200 for pass and warn, 503 for fail (draft-inadarei-api-health-check §3). */
  httpStatus: 200 | 503;
  body: Static<typeof HealthSchema>;
}
