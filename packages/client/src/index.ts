export {
  type CallOptions,
  NerkhClient,
  type NerkhClientOptions,
  type NerkhResult,
  type RetryOptions,
} from './client.ts';
export type { HealthResponse, Problem, ProblemCode, RateRow, RatesResponse } from './contract.ts';
export { NerkhBudgetError, NerkhError, NerkhProblemError, NerkhRequestError } from './errors.ts';
export { isStale, rowAgeSeconds } from './freshness.ts';
export type { RateLimitInfo, RateLimitPolicy, RateLimitState } from './rate-limit-fields.ts';
export type { BudgetOptions } from './request-budget.ts';
