import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * The headers helmet sets for `options`, worked out once. Helmet's middleware writes the same
 * headers for every response of a given configuration (nonces aside, which nerkh does not use),
 * while @fastify/helmet rebuilds the middleware, re-parsing the CSP, on every request: on the API's
 * hot path that was a measurable share of each request. Running helmet once against a recording
 * response keeps its defaults (and their future changes) without that cost.
 */
export function securityHeaders(options: HelmetOptions): ReadonlyArray<readonly [string, string]> {
  const headers = new Map<string, string>();
  const recorder = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers.set(name.toLowerCase(), Array.isArray(value) ? value.join(', ') : String(value));
    },
    removeHeader(name: string) {
      headers.delete(name.toLowerCase());
    },
  };
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error;
  });
  return [...headers];
}

/**
 * The security headers of every nerkh response: helmet's defaults with a CSP for a site that loads
 * nothing from elsewhere and runs no inline code. upgrade-insecure-requests is left to the TLS
 * terminator's configuration: on a plain-HTTP local run it would break every same-origin asset.
 * (The site pages replace the CSP with a stricter one of their own, see site/pages/layout.ts.)
 */
export function serviceSecurityHeaders(): ReadonlyArray<readonly [string, string]> {
  return securityHeaders({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        baseUri: ["'none'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        imgSrc: ["'self'", 'data:'],
        objectSrc: ["'none'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
      },
    },
  });
}
