import { describe, expect, it } from 'vitest';
import { isForbiddenAddress, resolveSafely } from './outbound-guard.ts';

describe('isForbiddenAddress', () => {
  it.each([
    ['93.184.215.14', 'public IPv4'],
    ['8.8.8.8', 'public IPv4'],
    ['2606:2800:21f:cb07:6820:80da:af6b:8b2c', 'public IPv6'],
    ['2a00:1450:4001:82a::200e', 'public IPv6'],
    ['::ffff:93.184.215.14', 'IPv4-mapped public IPv4'],
    ['::ffff:5db8:d70e', 'IPv4-mapped public IPv4, hex spelling'],
  ])('lets %s through (%s)', (address) => {
    expect(isForbiddenAddress(address)).toBe(false);
  });

  it.each([
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'this network'],
    ['10.1.2.3', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['127.0.0.1', 'loopback'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['172.16.0.1', 'private'],
    ['192.0.0.8', 'IETF protocol assignments'],
    ['192.0.2.1', 'documentation (TEST-NET-1)'],
    ['192.88.99.1', '6to4 relay anycast'],
    ['192.168.1.1', 'private'],
    ['198.18.0.1', 'benchmarking'],
    ['198.51.100.7', 'documentation (TEST-NET-2)'],
    ['203.0.113.9', 'documentation (TEST-NET-3)'],
    ['224.0.0.1', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['::127.0.0.1', 'IPv4-compatible loopback'],
    ['::7f00:1', 'IPv4-compatible loopback, hex spelling'],
    ['::8.8.8.8', 'IPv4-compatible (deprecated) public IPv4'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped metadata, hex spelling'],
    ['::ffff:192.0.2.1', 'IPv4-mapped documentation'],
    ['::ffff:0:127.0.0.1', 'IPv4-translated loopback'],
    ['64:ff9b::7f00:1', 'NAT64 well-known prefix'],
    ['64:ff9b:1::1', 'NAT64 local-use prefix'],
    ['100::1', 'discard-only'],
    ['2001::1', 'Teredo'],
    ['2001:2::1', 'benchmarking'],
    ['2001:db8::1', 'documentation'],
    ['2001:10::1', 'ORCHID'],
    ['2002:7f00:1::1', '6to4'],
    ['3fff::1', 'documentation (RFC 9637)'],
    ['5f00::1', 'segment routing'],
    ['fc00::1', 'unique local'],
    ['fd00:ec2::254', 'unique local (AWS metadata)'],
    ['fe80::1', 'link-local'],
    ['fec0::1', 'site-local (deprecated)'],
    ['ff02::1', 'multicast'],
    ['4000::1', 'outside global unicast 2000::/3'],
    ['fe80::1%eth0', 'link-local with a zone id'],
    ['not-an-address', 'not an address'],
    ['2130706433', 'not an address as the URL parser hands them over'],
  ])('refuses %s (%s)', (address) => {
    expect(isForbiddenAddress(address)).toBe(true);
  });

  it('checks a bracketed literal as the address inside', () => {
    expect(isForbiddenAddress('[::127.0.0.1]')).toBe(true);
    expect(isForbiddenAddress('[2606:2800:21f:cb07:6820:80da:af6b:8b2c]')).toBe(false);
  });
});

describe('resolveSafely', () => {
  it.each(['[::127.0.0.1]', '[64:ff9b:1::a]', '192.0.2.1', '[2001:db8::1]', '[100::1]', '[2001::1]'])(
    'refuses the literal host %s, unless private networks are allowed',
    async (host) => {
      expect(await resolveSafely(host, false)).toMatch(/private, loopback/);
      expect(await resolveSafely(host, true)).toEqual([expect.objectContaining({ address: host.replace(/^\[|\]$/g, '') })]);
    },
  );

  it('refuses what the URL parser makes of https://[::127.0.0.1]', async () => {
    expect(await resolveSafely(new URL('https://[::127.0.0.1]/hook').hostname, false)).toMatch(/private, loopback/);
  });
});
