import type { IncomingMessage } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';
import type { Config } from '../../config.ts';

/**
 * The client address of a request as Fastify's `request.ip` gives it under the same `trustProxy`
 * setting (docs/deployment.md#behind-a-proxy-or-load-balancer: NERKH_TRUST_PROXY), for code that
 * answers a request before Fastify sees it (../rates/fast-path.ts): the socket's peer, or behind
 * trusted proxies the nearest untrusted address of X-Forwarded-For, worked out by the same library
 * Fastify uses (@fastify/proxy-addr) with the same trust function. Undefined once the socket is
 * gone.
 */
export function clientAddressOf(
  trustProxy: Config['trustProxy'],
): (request: IncomingMessage) => string | undefined {
  if (trustProxy === false) return (request) => request.socket.remoteAddress;
  const trust = typeof trustProxy === 'function' ? trustProxy : proxyAddr.compile(trustProxy);
  return (request) => (request.socket.remoteAddress === undefined ? undefined : proxyAddr(request, trust));
}
