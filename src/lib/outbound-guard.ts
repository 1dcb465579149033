import { lookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which addresses outbound requests (webhooks, calendar fetches) may reach (SSRF): public unicast only, as
 * ipaddr.js classifies addresses from the IANA special-purpose registries. Loopback, private, link-local (cloud
 * metadata included), carrier-grade NAT, multicast, documentation, benchmarking, NAT64, 6to4, Teredo and every
 * other special range are refused. An IPv4-mapped IPv6 address is judged as the IPv4 address it carries.
 */
const GLOBAL_UNICAST_IPV6 = ipaddr.IPv6.parseCIDR('2000::/3');

function isPublicUnicast(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  if (address.range() !== 'unicast') return false;
  // Nothing outside 2000::/3 is allocated for global unicast; this also refuses the deprecated
  // IPv4-compatible form (`::127.0.0.1`), which ipaddr.js calls unicast.
  return address instanceof ipaddr.IPv4 || address.match(GLOBAL_UNICAST_IPV6);
}

/**
 * The WHATWG URL parser's spelling of an IPv6 address (hex groups only), or undefined (e.g. with a zone id).
 * ipaddr.js reads the dotted `::a.b.c.d` as IPv4-mapped, which that IPv4-compatible address is not.
 */
function canonicalIpv6(address: string): string | undefined {
  try {
    return new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
}

/** True when a literal IP address (v4 or v6, as `net.isIP` accepts it, brackets allowed) is one a request must not reach. */
export function isForbiddenAddress(address: string): boolean {
  const unbracketed = address.replace(/^\[|\]$/g, '');
  // net.isIP first: ipaddr.js also parses spellings such as `2130706433` that are no address on the wire.
  const family = isIP(unbracketed);
  if (family === 0) return true;
  const canonical = family === 4 ? unbracketed : canonicalIpv6(unbracketed);
  if (canonical === undefined) return true;
  const parsed = ipaddr.parse(canonical);
  if (parsed instanceof ipaddr.IPv6 && parsed.isIPv4MappedAddress()) return !isPublicUnicast(parsed.toIPv4Address());
  return !isPublicUnicast(parsed);
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/**
 * A lookup hook that connects to the address that was checked, whatever the name resolves to a moment later, so
 * DNS rebinding cannot reach a forbidden address.
 */
export function lookupPinnedTo(checked: ResolvedAddress): LookupFunction {
  return (_host, options, callback) => {
    if (options.all) callback(null, [checked]);
    else callback(null, checked.address, checked.family);
  };
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
  if (!allowPrivate && addresses.some((entry) => isForbiddenAddress(entry.address))) return FORBIDDEN_HOST;
  return addresses;
}

const FORBIDDEN_HOST = 'host resolves to a private, loopback, link-local, multicast, metadata or other special-purpose address';

/**
 * Why an outbound URL (a webhook, a calendar feed) is refused, or undefined when it may be used (`https://` and a
 * public host). A refusal that `allowPrivate` would lift names the setting that turns it on (`privateSetting`),
 * so a developer with a receiver on their own machine finds it.
 */
export async function outboundUrlProblem(rawUrl: string, allowPrivate: boolean, privateSetting?: string): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return 'must be an absolute URL';
  }
  const hint = (problem: string) =>
    privateSetting ? `${problem} (${privateSetting}=true allows http:// and private addresses, for development only)` : problem;
  const schemes = allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) return allowPrivate ? 'must be an http or https URL' : hint('must be an https:// URL');
  if (url.username || url.password) return 'must not carry credentials';
  const resolved = await resolveSafely(url.hostname, allowPrivate);
  if (typeof resolved !== 'string') return undefined;
  return resolved === FORBIDDEN_HOST ? hint(resolved) : resolved;
}
