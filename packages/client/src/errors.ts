import type { Problem, ProblemCode } from './contract.ts';

/** Base class of everything the client throws on purpose (aborts rethrow the signal's reason). */
export class NerkhError extends Error {
  override name = 'NerkhError';
}

/**
 * The service answered with an RFC 9457 problem document. Switch on `code`; `retryAfter` is the
 * `Retry-After` field in seconds (429 and 503), null when the answer had none.
 */
export class NerkhProblemError extends NerkhError {
  override name = 'NerkhProblemError';
  readonly code: ProblemCode;
  readonly status: number;
  readonly detail: string;
  readonly retryAfter: number | null;
  readonly problem: Problem;

  constructor(problem: Problem, status: number, retryAfter: number | null) {
    super(`${status} ${problem.code}: ${problem.detail}`);
    this.problem = problem;
    this.code = problem.code;
    this.status = status;
    this.detail = problem.detail;
    this.retryAfter = retryAfter;
  }
}

/**
 * Refused by the client's own budget before any request was sent: the key's quota, as the
 * service last reported it, has no request left. `retryAfter` is when a slot frees, in seconds.
 */
export class NerkhBudgetError extends NerkhError {
  override name = 'NerkhBudgetError';
  readonly code = 'budget-exhausted';
  constructor(readonly retryAfter: number) {
    super(`the key's rate-limit budget is used up; a request slot frees in ${retryAfter} s`);
  }
}

/** No usable answer: the request timed out, the network failed, or the answer was not the API's. */
export class NerkhRequestError extends NerkhError {
  override name = 'NerkhRequestError';
  constructor(
    readonly code: 'timeout' | 'network' | 'unexpected-response',
    message: string,
    readonly status: number | null = null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
