/**
 * The IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers), e.g.
 * `RateLimit: "default";r=59;t=60` and `RateLimit-Policy: "default";q=60;w=60`. Both are
 * Structured Field lists (RFC 9651) of quoted policy names with integer parameters. Hand-written:
 * the client has no runtime dependencies, and only this small subset of the syntax is needed.
 */
export interface RateLimitPolicy {
  name: string;
  /** Quota: requests allowed per window. */
  quota: number;
  /** Window length in seconds. */
  window: number;
}

export interface RateLimitState {
  name: string;
  /** Requests that remain now. */
  remaining: number;
  /** Seconds until a request slot frees. */
  reset: number;
}

export interface RateLimitInfo {
  policies: RateLimitPolicy[];
  limits: RateLimitState[];
}

interface ListItem {
  name: string;
  params: Map<string, number>;
}

function parseList(field: string): ListItem[] {
  const items: ListItem[] = [];
  for (const member of field.split(',')) {
    const [nameToken = '', ...paramTokens] = member.trim().split(';');
    const quoted = /^"([^"\\]*)"$/.exec(nameToken.trim());
    const name = quoted?.[1] ?? nameToken.trim();
    if (name === '') continue;
    const params = new Map<string, number>();
    for (const token of paramTokens) {
      const [key = '', value = ''] = token.trim().split('=');
      if (/^-?\d+$/.test(value)) params.set(key.trim(), Number(value));
    }
    items.push({ name, params });
  }
  return items;
}

/** The parsed fields of one response, or null when it carried neither. */
export function parseRateLimitFields(headers: Headers): RateLimitInfo | null {
  const limitField = headers.get('ratelimit');
  const policyField = headers.get('ratelimit-policy');
  if (limitField === null && policyField === null) return null;
  const policies = parseList(policyField ?? '').flatMap(({ name, params }) => {
    const quota = params.get('q');
    const window = params.get('w');
    return quota === undefined || window === undefined ? [] : [{ name, quota, window }];
  });
  const limits = parseList(limitField ?? '').flatMap(({ name, params }) => {
    const remaining = params.get('r');
    const reset = params.get('t');
    return remaining === undefined || reset === undefined ? [] : [{ name, remaining, reset }];
  });
  return { policies, limits };
}
