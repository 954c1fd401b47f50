import { describe, expect, it } from 'vitest';
import { clientNetwork } from '../../src/net/client-network.ts';

describe('clientNetwork', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:aaaa::1', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:0000:0000:0000:0009', '2001:db8:1:2::/64'],
    ['::ffff:198.51.100.4', '198.51.100.4'],
    ['::1', '0:0:0:0::/64'],
    ['not an address', 'not an address'],
  ])('%s counts as %s', (ip, network) => {
    expect(clientNetwork(ip)).toBe(network);
  });

  it('puts every address of one /64 in one network and the next /64 in another', () => {
    expect(clientNetwork('2001:db8:0:1::1')).toBe(clientNetwork('2001:db8:0:1:dead:beef:0:1'));
    expect(clientNetwork('2001:db8:0:1::1')).not.toBe(clientNetwork('2001:db8:0:2::1'));
  });
});
