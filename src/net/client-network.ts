import ipaddr from 'ipaddr.js';

/**
 * The network a client address stands for when requests are counted per client (the contact
 * form's hourly limit, the pause on invalid keys): an IPv4 address itself, but an IPv6 address's
 * /64. One subscriber is routinely given a whole /64, so counting single IPv6 addresses would let
 * one client rotate through 2^64 of them and never reach a limit (OWASP API4:2023, unrestricted
 * resource consumption). An IPv4-mapped IPv6 address counts as its IPv4 address. IPv4 addresses,
 * the common case, are returned without parsing.
 */
export function clientNetwork(ip: string): string {
  if (!ip.includes(':') || !ipaddr.isValid(ip)) return ip;
  const address = ipaddr.parse(ip);
  if (address.kind() === 'ipv4') return address.toString();
  const v6 = address as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  return `${v6.parts
    .slice(0, 4)
    .map((part) => part.toString(16))
    .join(':')}::/64`;
}
