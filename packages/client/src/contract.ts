import type { operations } from './generated/openapi.ts';

/**
 * The API's shapes, taken from the types openapi-typescript generated from the service's own
 * `/v1/openapi.json` (see ./generated): never typed a second time by hand.
 */
type RatesResponses = operations['getRates']['responses'];
type HealthResponses = operations['getHealth']['responses'];

/** `GET /v1/rates`: the last committed snapshot's sell rates. */
export type RatesResponse = RatesResponses[200]['content']['application/json'];
/** One currency's row; judge its freshness by its own `as_of`, never by `updated_at`. */
export type RateRow = RatesResponse['rates'][number];
/** `GET /v1/health` (draft-inadarei-api-health-check), on 200 and on 503 alike. */
export type HealthResponse = HealthResponses[200]['content']['application/health+json'];
/** An RFC 9457 problem document as the service sends it. */
export type Problem = RatesResponses[401]['content']['application/problem+json'];
/** Every stable `code` a problem can carry (the service's error catalog). */
export type ProblemCode = Problem['code'];
