/**
 * A host as it is written in a URL's authority: an IPv6 literal goes in brackets, so its colons
 * are not read as the port separator (RFC 3986 §3.2.2); names and IPv4 addresses stay as they are.
 */
export function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}
