import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * CSRF protection of the contact form: the signed double-submit cookie pattern (OWASP CSRF
 * Prevention Cheat Sheet). Loading the form sets a random nonce in a `SameSite=Strict`, HttpOnly
 * cookie and puts `v1.<issued>.<nonce>.<hmac>` in a hidden field. A submission is accepted only
 * when the field's HMAC (keyed with a server secret) is valid, the token is younger than its
 * lifetime, and its nonce equals the cookie's. Another site can neither read the token nor make
 * the browser send the Strict cookie, and nobody can mint a token without the secret.
 */

export const formCookieName = 'nerkh_form';

type TokenCheck = 'ok' | 'missing' | 'invalid' | 'expired';

interface FormTokenOptions {
  /** HMAC key; must be the same on every instance behind one load balancer. */
  secret: string | Buffer;
  clock: () => number;
  /** How long a loaded form stays submittable (default 2 h). */
  maxAgeMs?: number;
}

const noncePattern = /^[A-Za-z0-9_-]{22}$/;

export class FormTokens {
  readonly #secret: string | Buffer;
  readonly #clock: () => number;
  readonly maxAgeMs: number;

  constructor(options: FormTokenOptions) {
    this.#secret = options.secret;
    this.#clock = options.clock;
    this.maxAgeMs = options.maxAgeMs ?? 2 * 60 * 60 * 1000;
  }

  /** A fresh nonce, unless the browser already holds a well-formed one (so two open tabs both work). */
  nonceFor(cookieNonce: string | undefined): string {
    return cookieNonce !== undefined && noncePattern.test(cookieNonce)
      ? cookieNonce
      : randomBytes(16).toString('base64url');
  }

  issue(nonce: string): string {
    const payload = `v1.${this.#clock().toString(36)}.${nonce}`;
    return `${payload}.${this.#mac(payload)}`;
  }

  check(token: unknown, cookieNonce: string | undefined): TokenCheck {
    if (typeof token !== 'string' || token === '') return 'missing';
    const parts = token.split('.');
    if (parts.length !== 4 || parts[0] !== 'v1') return 'invalid';
    const [, issued = '', nonce = '', mac = ''] = parts;
    const expected = Buffer.from(this.#mac(`v1.${issued}.${nonce}`));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
    if (cookieNonce === undefined || cookieNonce !== nonce) return 'invalid';
    const issuedMs = Number.parseInt(issued, 36);
    const age = this.#clock() - issuedMs;
    // A token from the future (beyond clock skew between instances) was not issued by us as is.
    if (!Number.isFinite(issuedMs) || age < -60_000) return 'invalid';
    return age > this.maxAgeMs ? 'expired' : 'ok';
  }

  #mac(payload: string): string {
    return createHmac('sha256', this.#secret).update(payload).digest('base64url');
  }
}

/** Reads one cookie from a `Cookie` header (RFC 6265 §5.4); null-safe and strict about the name. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const pair of header.split(';')) {
    const separator = pair.indexOf('=');
    if (separator === -1) continue;
    if (pair.slice(0, separator).trim() === name) return pair.slice(separator + 1).trim();
  }
  return undefined;
}
