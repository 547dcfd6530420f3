import * as dns from 'node:dns';
import * as net from 'node:net';

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

/** IPv4 ranges that are never reachable as public services: [network, prefix length]. */
const BLOCKED_V4_RANGES: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8], // "this" network, unspecified
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // TEST-NET-1
  ['192.88.99.0', 24], // 6to4 relay anycast (deprecated)
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // TEST-NET-2
  ['203.0.113.0', 24], // TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, includes 255.255.255.255 broadcast
];

function parseV4(ip: string): number {
  const parts = ip.split('.').map((p) => Number(p));
  return ((parts[0] << 24) | (parts[1] << 16) | (parts[2] << 8) | parts[3]) >>> 0;
}

const BLOCKED_V4: ReadonlyArray<{ network: number; mask: number }> = BLOCKED_V4_RANGES.map(([base, prefix]) => {
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return { network: (parseV4(base) & mask) >>> 0, mask };
});

function isBlockedV4(value: number): boolean {
  return BLOCKED_V4.some(({ network, mask }) => (value & mask) >>> 0 === network);
}

/** Expands an IPv6 address (already validated by net.isIPv6) into eight 16-bit groups. */
function parseV6(ip: string): number[] {
  let text = ip.toLowerCase();
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  const last = text.slice(lastColon + 1);
  if (last.includes('.')) {
    const v4 = parseV4(last);
    tail.push(v4 >>> 16, v4 & 0xffff);
    text = text.slice(0, lastColon + 1);
    if (!text.endsWith('::')) text = text.slice(0, -1);
  }
  const groups = (s: string): number[] => (s === '' ? [] : s.split(':').map((h) => parseInt(h, 16)));
  const gap = text.indexOf('::');
  if (gap < 0) return [...groups(text), ...tail];
  const head = groups(text.slice(0, gap));
  const rest = groups(text.slice(gap + 2));
  const zeros = new Array<number>(8 - tail.length - head.length - rest.length).fill(0);
  return [...head, ...zeros, ...rest, ...tail];
}

function v4FromGroups(high: number, low: number): number {
  return ((high << 16) | low) >>> 0;
}

function isBlockedV6(g: number[]): boolean {
  const firstFiveZero = g[0] === 0 && g[1] === 0 && g[2] === 0 && g[3] === 0 && g[4] === 0;
  // ::ffff:a.b.c.d (IPv4-mapped): judge the embedded IPv4 address.
  if (firstFiveZero && g[5] === 0xffff) return isBlockedV4(v4FromGroups(g[6], g[7]));
  // ::/96 covers ::, ::1 and deprecated IPv4-compatible addresses; ::ffff:0:0/96 (SIIT) embeds IPv4.
  if (firstFiveZero && g[5] === 0) return true;
  if (g[0] === 0 && g[1] === 0 && g[2] === 0 && g[3] === 0 && g[4] === 0xffff && g[5] === 0) {
    return isBlockedV4(v4FromGroups(g[6], g[7]));
  }
  // 64:ff9b::/96 (NAT64 well-known prefix) embeds IPv4; 64:ff9b:1::/48 is local-use NAT64.
  if (g[0] === 0x64 && g[1] === 0xff9b) {
    if (g[2] === 1) return true;
    if (g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0) return isBlockedV4(v4FromGroups(g[6], g[7]));
  }
  // Only 2000::/3 is global unicast; this excludes fc00::/7, fe80::/10, fec0::/10, ff00::/8, 100::/64, ...
  if ((g[0] & 0xe000) !== 0x2000) return true;
  if (g[0] === 0x2001 && g[1] === 0x0db8) return true; // documentation
  if (g[0] === 0x2001 && g[1] === 0) return true; // Teredo (embeds obfuscated IPv4)
  if (g[0] === 0x2001 && (g[1] & 0xfff0) === 0x0010) return true; // ORCHID
  if (g[0] === 0x2002) return isBlockedV4(v4FromGroups(g[1], g[2])); // 6to4 embeds IPv4
  return false;
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
  const version = net.isIP(addr);
  if (version === 4) return isBlockedV4(parseV4(addr));
  if (version === 6) return isBlockedV6(parseV6(addr));
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
