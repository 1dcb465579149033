import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Which addresses a webhook may never reach (SSRF): loopback, private, link-local (cloud metadata
 * 169.254.169.254 included), carrier-grade NAT, multicast, unspecified, and the IPv6 equivalents. IPv4-mapped
 * IPv6 addresses are checked as the IPv4 address they carry.
 */
const FORBIDDEN = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  FORBIDDEN.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
  ['2002::', 16],
  ['fd00:ec2::254', 128],
] as const) {
  FORBIDDEN.addSubnet(network, prefix, 'ipv6');
}

const MAPPED_IPV4 = /^::ffff:(?:0:)?(\d+\.\d+\.\d+\.\d+)$/i;
const MAPPED_IPV4_HEX = /^::ffff:(?:0:)?([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i;

/** The IPv4 address an IPv4-mapped (or -translated) IPv6 address carries, if it is one. */
function embeddedIpv4(address: string): string | undefined {
  const dotted = MAPPED_IPV4.exec(address);
  if (dotted) return dotted[1];
  const hex = MAPPED_IPV4_HEX.exec(address);
  if (!hex) return undefined;
  const high = Number.parseInt(hex[1]!, 16);
  const low = Number.parseInt(hex[2]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** True when a literal IP address (v4 or v6, as `net.isIP` accepts it) is one a webhook must not reach. */
export function isForbiddenAddress(address: string): boolean {
  const unbracketed = address.replace(/^\[|\]$/g, '');
  const family = isIP(unbracketed);
  if (family === 4) return FORBIDDEN.check(unbracketed, 'ipv4');
  if (family !== 6) return true;
  const mapped = embeddedIpv4(unbracketed);
  if (mapped) return FORBIDDEN.check(mapped, 'ipv4');
  return FORBIDDEN.check(unbracketed, 'ipv6');
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/**
 * Every address a host name resolves to, refused as a whole when any of them is forbidden (an attacker's
 * name may answer with a public and a private address). The WHATWG URL parser has already turned decimal,
 * octal and hex IPv4 spellings (`2130706433`, `0177.0.0.1`, `0x7f.1`) into dotted form, so a literal host
 * arrives here as a plain address.
 */
export async function resolveSafely(hostname: string, allowPrivate: boolean): Promise<ResolvedAddress[] | string> {
  const host = hostname.replace(/^\[|\]$/g, '');
  const literal = isIP(host);
  const addresses: ResolvedAddress[] = literal
    ? [{ address: host, family: literal as 4 | 6 }]
    : ((await lookup(host, { all: true, verbatim: true }).catch(() => [])) as ResolvedAddress[]);
  if (addresses.length === 0) return `host ${hostname} does not resolve`;
  if (!allowPrivate && addresses.some((entry) => isForbiddenAddress(entry.address))) {
    return 'host resolves to a private, loopback, link-local, multicast or metadata address';
  }
  return addresses;
}

/** Why a webhook URL is refused, or undefined when it may be used (`https://` and a public host). */
export async function webhookUrlProblem(rawUrl: string, allowPrivate: boolean): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return 'must be an absolute URL';
  }
  const schemes = allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) return allowPrivate ? 'must be an http or https URL' : 'must be an https:// URL';
  if (url.username || url.password) return 'must not carry credentials';
  const resolved = await resolveSafely(url.hostname, allowPrivate);
  return typeof resolved === 'string' ? resolved : undefined;
}
