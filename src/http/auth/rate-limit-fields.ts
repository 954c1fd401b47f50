import { flatString } from '../../flat-string.ts';
import type { RateLimitDecision } from '../../limiter/types.ts';

/** The one limit policy, named as draft-ietf-httpapi-ratelimit-headers names policies. */
export const ratePolicyName = 'default';

/**
 * The values of the `RateLimit-Policy` and `RateLimit` fields (draft-ietf-httpapi-ratelimit-headers)
 * of a decision: the policy (quota q per window w seconds) and the current state (r requests
 * remaining, t seconds until the next slot frees). Both ways a keyed response is sent, through
 * Fastify (./api-key-guard.ts) and the rates fast path (../rates/fast-path.ts), take them from here.
 */
export class RateLimitFields {
  readonly #windowSeconds: number;
  /** `RateLimit-Policy` is the same for every request under one limit: built once per limit. */
  readonly #policies = new Map<number, string>();

  constructor(windowSeconds: number) {
    this.#windowSeconds = windowSeconds;
  }

  policy(limit: number): string {
    let value = this.#policies.get(limit);
    if (value === undefined) {
      value = flatString('"', ratePolicyName, '";q=', String(limit), ';w=', String(this.#windowSeconds));
      if (this.#policies.size < 1000) this.#policies.set(limit, value);
    }
    return value;
  }

  state(decision: RateLimitDecision): string {
    return `"${ratePolicyName}";r=${decision.remaining};t=${decision.resetSeconds}`;
  }
}
