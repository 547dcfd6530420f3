import * as dns from 'node:dns';
import * as net from 'node:net';
import ipaddr from 'ipaddr.js';

/** Why an outbound URL was refused. */
export type SsrfBlockReason = 'invalid-url' | 'scheme' | 'private-address' | 'unresolvable';

/** An outbound URL was refused by the SSRF policy (bad scheme, private address, unresolvable host). */
export class SsrfBlockedError extends Error {
  constructor(
    message: string,
    readonly reason: SsrfBlockReason,
  ) {
    super(message);
    this.name = 'SsrfBlockedError';
  }
}

const ALLOWED_PROTOCOLS = new Set(['http:', 'https:']);

/**
 * Classification (ipaddr.js range names). IPv4: only `unicast` is public, plus the anycast ranges of
 * public services (AS112 DNS, AMT relays); everything else (0.0.0.0/8, 10/8, 100.64/10 CGNAT,
 * 127/8, 169.254/16 link-local and cloud metadata, 172.16/12, 192.0.0/24, TEST-NETs, 192.88.99/24,
 * 192.168/16, 198.18/15, 224/4 multicast, 240/4 and broadcast) is not. An unknown range name from a
 * later ipaddr.js counts as not public (fail closed).
 */
const PUBLIC_V4_RANGES: ReadonlySet<string> = new Set(['unicast', 'as112', 'amt']);
/**
 * IPv6: `unicast` inside 2000::/3 (global unicast) is public, plus AS112 and AMT anycast. Ranges that
 * embed an IPv4 address are judged by it (IPv4-mapped ::ffff:0:0/96, SIIT ::ffff:0:0:0/96, NAT64
 * 64:ff9b::/96, 6to4 2002::/16); the rest (::/128, ::1, ::/96 IPv4-compatible, fc00::/7 unique-local,
 * fe80::/10 link-local, fec0::/10, ff00::/8 multicast, 100::/64 discard, 64:ff9b:1::/48 local NAT64,
 * Teredo 2001::/32, ORCHID, benchmarking, the rest of the IETF block 2001::/23, documentation
 * 2001:db8::/32 and 3fff::/20, segment routing) is not.
 */
const PUBLIC_V6_RANGES: ReadonlySet<string> = new Set(['unicast', 'as112v6', 'amt']);
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

/** The IPv4 address held in bytes [from, from + 4) of an IPv6 address. */
function embeddedV4(addr: ipaddr.IPv6, from: number): ipaddr.IPv4 {
  return new ipaddr.IPv4(addr.toByteArray().slice(from, from + 4));
}

function isPublicV4(addr: ipaddr.IPv4): boolean {
  return PUBLIC_V4_RANGES.has(addr.range());
}

function isPublicV6(addr: ipaddr.IPv6): boolean {
  const range = addr.range();
  switch (range) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d
      return isPublicV4(embeddedV4(addr, 12));
    case 'rfc6052': // 64:ff9b::a.b.c.d; the local-use 64:ff9b:1::/48 is not public
      return addr.match(NAT64_WELL_KNOWN) && isPublicV4(embeddedV4(addr, 12));
    case '6to4': // 2002:aabb:ccdd::/48
      return isPublicV4(embeddedV4(addr, 2));
    default:
      return PUBLIC_V6_RANGES.has(range) && addr.match(GLOBAL_UNICAST);
  }
}

/** Removes IPv6 brackets and zone ids ("[fe80::1%eth0]" -> "fe80::1"). */
function normalizeIp(ip: string): string {
  let text = ip.trim();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  const zone = text.indexOf('%');
  return zone >= 0 ? text.slice(0, zone) : text;
}

/**
 * True when `ip` is not a public unicast address: private, loopback, link-local, unique-local,
 * unspecified, multicast, CGNAT, broadcast, documentation or otherwise reserved (IPv4 and IPv6,
 * including IPv4 embedded in IPv6). Anything that is not an IP address counts as private (fail closed).
 */
export function isPrivateAddress(ip: string): boolean {
  const addr = normalizeIp(ip);
  // net.isIP first: it accepts only the standard notations (ipaddr.js also reads "0x7f.1" and the like).
  const version = net.isIP(addr);
  if (version === 4) return !isPublicV4(ipaddr.IPv4.parse(addr));
  if (version === 6) return !isPublicV6(ipaddr.IPv6.parse(addr));
  return true;
}

/** The IP address a URL hostname denotes literally, or null when it is a DNS name. */
export function ipLiteralOf(hostname: string): string | null {
  const addr = normalizeIp(hostname);
  return net.isIP(addr) ? addr : null;
}

/** Parses a URL and enforces the http/https scheme; throws SsrfBlockedError otherwise. */
export function parseOutboundUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new SsrfBlockedError('The URL is not valid', 'invalid-url');
  }
  if (!ALLOWED_PROTOCOLS.has(parsed.protocol)) {
    throw new SsrfBlockedError(`The URL scheme ${parsed.protocol} is not allowed (only http and https)`, 'scheme');
  }
  if (!parsed.hostname) throw new SsrfBlockedError('The URL has no host', 'invalid-url');
  return parsed;
}

function blockedAddressError(host: string): SsrfBlockedError {
  return new SsrfBlockedError(`The host ${host} is or resolves to a non-public address`, 'private-address');
}

/** Throws SsrfBlockedError when the URL's host is a literal non-public IP address (no DNS needed). */
export function assertPublicLiteralHost(url: URL): void {
  const literal = ipLiteralOf(url.hostname);
  if (literal !== null && isPrivateAddress(literal)) throw blockedAddressError(url.hostname);
}

/**
 * Checks a URL before storing it (webhook subscription, instance URL at connect): scheme must be
 * http/https and, unless allowPrivate, every address the host resolves to must be public.
 * The check is repeated at connect time by OutboundHttp, so DNS rebinding afterwards does not help.
 */
export async function assertPublicUrl(url: string, allowPrivate: boolean): Promise<void> {
  const parsed = parseOutboundUrl(url);
  if (allowPrivate) return;
  assertPublicLiteralHost(parsed);
  if (ipLiteralOf(parsed.hostname) !== null) return;
  let addresses: dns.LookupAddress[];
  try {
    addresses = await dns.promises.lookup(parsed.hostname, { all: true, verbatim: true });
  } catch {
    throw new SsrfBlockedError(`The host ${parsed.hostname} could not be resolved`, 'unresolvable');
  }
  if (addresses.length === 0) {
    throw new SsrfBlockedError(`The host ${parsed.hostname} could not be resolved`, 'unresolvable');
  }
  if (addresses.some((a) => isPrivateAddress(a.address))) throw blockedAddressError(parsed.hostname);
}

/**
 * A `lookup` for http.request/net.connect that resolves the host and refuses the connection when any
 * resolved address is non-public. Because it runs at connect time, the address checked is the
 * address connected to.
 */
export function createGuardedLookup(): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) {
        callback(err, '', 0);
        return;
      }
      if (addresses.length === 0 || addresses.some((a) => isPrivateAddress(a.address))) {
        callback(blockedAddressError(hostname), '', 0);
        return;
      }
      if (options.all) {
        callback(null, addresses);
      } else {
        callback(null, addresses[0].address, addresses[0].family);
      }
    });
  };
}
