import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import os from 'node:os';
import ipaddr from 'ipaddr.js';
import { StudioError } from '@studio/schema';

/**
 * Which network addresses a data connection may reach (#11, #45). Every driver asks `check(host, port)`
 * right before it opens a socket, and connects to the address it answers, never to the name again
 * (a second DNS answer could point elsewhere). Only public unicast addresses pass on their own: this
 * machine's own interface addresses, loopback, private, shared (CGNAT), link-local, unspecified, every
 * IANA special-use and reserved range, multicast and broadcast are refused unless the administrator lists
 * them in STUDIO_CONNECTION_HOSTS, and an IPv6 address that carries an IPv4 one (mapped, compatible,
 * NAT64, 6to4, Teredo) is refused when the IPv4 it carries would be. The catalog's own database server
 * is refused even when listed. A refusal happens before any packet is sent, so it answers the same
 * message at once whether the port is open, closed or filtered.
 */

/** One entry of STUDIO_CONNECTION_HOSTS: a host name, an address or a CIDR block, and a port (any when absent or `*`). */
export interface HostPattern {
  host: string;
  /** A CIDR block when the entry is written `address/bits`. */
  block: BlockList | null;
  port: number | null;
}

export type AddressKind =
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'unspecified'
  | 'multicast'
  | 'broadcast'
  /** Assigned by IANA for a purpose that is not a host on the internet (documentation, benchmarking, translation, relays). */
  | 'special-use'
  /** Not allocated for unicast (IPv4 240/4, IPv6 outside 2000::/3). */
  | 'reserved'
  | 'public';

type Ip = ipaddr.IPv4 | ipaddr.IPv6;
type Cidr = [Ip, number];

/**
 * The IANA IPv4 and IPv6 special-purpose registries (RFC 6890 and its updates), first match wins. Ranges
 * that are globally reachable by the registry (a few anycast blocks inside 2001::/23) are refused with
 * their block: a warehouse never lives there.
 */
const RANGES: [AddressKind, Cidr][] = (
  [
    ['unspecified', '0.0.0.0/8'],
    ['private', '10.0.0.0/8'],
    ['private', '100.64.0.0/10'],
    ['loopback', '127.0.0.0/8'],
    ['link-local', '169.254.0.0/16'],
    ['private', '172.16.0.0/12'],
    ['special-use', '192.0.0.0/24'],
    ['special-use', '192.0.2.0/24'],
    ['special-use', '192.88.99.0/24'],
    ['private', '192.168.0.0/16'],
    ['special-use', '198.18.0.0/15'],
    ['special-use', '198.51.100.0/24'],
    ['special-use', '203.0.113.0/24'],
    ['multicast', '224.0.0.0/4'],
    ['broadcast', '255.255.255.255/32'],
    ['reserved', '240.0.0.0/4'],
    ['unspecified', '::/128'],
    ['loopback', '::1/128'],
    ['special-use', '::ffff:0:0/96'],
    ['special-use', '64:ff9b::/96'],
    ['special-use', '64:ff9b:1::/48'],
    ['special-use', '100::/64'],
    ['special-use', '2001::/23'],
    ['special-use', '2001:db8::/32'],
    ['special-use', '2002::/16'],
    ['special-use', '3fff::/20'],
    ['private', 'fc00::/7'],
    ['link-local', 'fe80::/10'],
    ['multicast', 'ff00::/8'],
  ] as [AddressKind, string][]
).map(([kind, cidr]) => [kind, ipaddr.parseCIDR(cidr)]);

const cidr = (text: string) => ipaddr.parseCIDR(text);
/** IPv6 global unicast: everything outside it is reserved by the IETF (IPv4-compatible ::/96, site-local fec0::/10, …). */
const GLOBAL_UNICAST = cidr('2000::/3');
const IPV4_MAPPED = cidr('::ffff:0:0/96');
const IPV4_COMPATIBLE = cidr('::/96');
const NAT64 = cidr('64:ff9b::/96');
const SIX_TO_FOUR = cidr('2002::/16');
const TEREDO = cidr('2001::/32');

const inRange = (ip: Ip, [net, bits]: Cidr) => ip.kind() === net.kind() && ip.match(net, bits);

/** The address as an ipaddr value (brackets and an IPv6 zone dropped), or null when it is no address. */
function parseAddress(address: string): Ip | null {
  const text = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  return isIP(text) ? ipaddr.parse(text) : null;
}

/** The kind of the range an address lies in, not looking at what it carries. */
function rangeKind(ip: Ip): AddressKind {
  for (const [kind, range] of RANGES) if (inRange(ip, range)) return kind;
  return ip.kind() === 'ipv6' && !inRange(ip, GLOBAL_UNICAST) ? 'reserved' : 'public';
}

/**
 * The IPv4 addresses an IPv6 address leads to: the one it maps or is compatible with (the socket goes
 * there), the one a NAT64 gateway translates it to (64:ff9b::/96 keeps it in the last 32 bits), the 6to4
 * relay it is tunnelled to (bits 16-47), a Teredo address's server and (inverted) client.
 */
function carriedIPv4(ip: Ip): ipaddr.IPv4[] {
  if (!(ip instanceof ipaddr.IPv6)) return [];
  const b = ip.toByteArray();
  const v4 = (bytes: number[]) => new ipaddr.IPv4(bytes);
  if (inRange(ip, IPV4_MAPPED) || inRange(ip, NAT64)) return [v4(b.slice(12))];
  // ::/96 holds :: and ::1 too, which carry nothing.
  if (inRange(ip, IPV4_COMPATIBLE)) return rangeKind(ip) === 'reserved' ? [v4(b.slice(12))] : [];
  if (inRange(ip, SIX_TO_FOUR)) return [v4(b.slice(2, 6))];
  if (inRange(ip, TEREDO)) return [v4(b.slice(4, 8)), v4(b.slice(12).map((x) => x ^ 0xff))];
  return [];
}

/** One spelling per address: an IPv4-mapped IPv6 address as its IPv4 (the socket goes there), IPv6 compressed (RFC 5952). */
function canonical(ip: Ip): string {
  return ip instanceof ipaddr.IPv6 && ip.isIPv4MappedAddress() ? ip.toIPv4Address().toString() : ip.toString();
}

/** An address written as DNS or the user gives it, in its one spelling (unchanged when it is no address). */
function unmapped(address: string): string {
  const ip = parseAddress(address);
  return ip ? canonical(ip) : address;
}

/**
 * The kind of an IP address (literal, as DNS answers it). An IPv6 address carrying a restricted IPv4
 * address has that address's kind (::ffff:127.0.0.1 is loopback); text that is no address is reserved.
 */
export function addressKind(address: string): AddressKind {
  const ip = parseAddress(address);
  if (!ip) return 'reserved';
  for (const carried of carriedIPv4(ip)) {
    const kind = rangeKind(carried);
    if (kind !== 'public') return kind;
  }
  return rangeKind(ip);
}

/** Parses STUDIO_CONNECTION_HOSTS: `host[:port]` entries separated by commas; `[v6]:port` for IPv6. */
export function parseHostPatterns(value: string | undefined): HostPattern[] {
  if (!value?.trim()) return [];
  return value.split(',').map((raw) => raw.trim()).filter(Boolean).map((entry) => {
    const m = /^(?:\[([0-9a-fA-F:.]+(?:\/\d{1,3})?)\]|([\w.-]+(?:\/\d{1,3})?))(?::(\d+|\*))?$/.exec(entry);
    if (!m) throw new Error(`STUDIO_CONNECTION_HOSTS: cannot read "${entry}" (expected host[:port], address/bits[:port] or [ipv6][:port])`);
    const host = (m[1] ?? m[2]!).toLowerCase();
    const port = m[3] === undefined || m[3] === '*' ? null : Number(m[3]);
    if (port !== null && (port < 1 || port > 65535)) throw new Error(`STUDIO_CONNECTION_HOSTS: bad port in "${entry}"`);
    let block: BlockList | null = null;
    const cidr = /^(.+)\/(\d{1,3})$/.exec(host);
    if (cidr) {
      const family = isIP(cidr[1]!);
      if (!family) throw new Error(`STUDIO_CONNECTION_HOSTS: "${entry}" is not an address block`);
      block = new BlockList();
      block.addSubnet(cidr[1]!, Number(cidr[2]), family === 6 ? 'ipv6' : 'ipv4');
    }
    return { host, block, port };
  });
}

export type Resolver = (host: string) => Promise<string[]>;
const systemResolver: Resolver = async (host) => (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** Every address of this machine's interfaces (IPv4 and IPv6, up or not), as os.networkInterfaces() tells. */
const systemLocalAddresses = () => Object.values(os.networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));

export interface NetworkReachOptions {
  allowed: HostPattern[];
  /** The catalog's PostgreSQL (from DATABASE_URL), never reachable; null on the embedded catalog. */
  catalog: { host: string; port: number } | null;
  resolve?: Resolver;
  /** This machine's addresses (read at each check: interfaces come and go); os.networkInterfaces() by default. */
  localAddresses?: () => string[];
}

export class NetworkReach {
  private readonly resolve: Resolver;
  private readonly ownAddresses: () => string[];

  constructor(private readonly opts: NetworkReachOptions) {
    this.resolve = opts.resolve ?? systemResolver;
    this.ownAddresses = opts.localAddresses ?? systemLocalAddresses;
  }

  static fromConfig(config: { connectionHosts: HostPattern[]; databaseUrl: string | null }, resolve?: Resolver, localAddresses?: () => string[]): NetworkReach {
    let catalog: NetworkReachOptions['catalog'] = null;
    if (config.databaseUrl) {
      const url = new URL(config.databaseUrl);
      // A socket-directory host (no host in the URL) is this machine.
      catalog = { host: url.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1', port: Number(url.port || 5432) };
    }
    return new NetworkReach({ allowed: config.connectionHosts, catalog, resolve, localAddresses });
  }

  private localAddresses(): Set<string> {
    return new Set(this.ownAddresses().map(unmapped));
  }

  /** Whether STUDIO_CONNECTION_HOSTS lets `host` through at `ip`: by the name, the address or a block holding it. */
  private listed(host: string, ip: Ip, port: number): boolean {
    // An IPv4-mapped address is the IPv4 address itself on the wire: a listing of either covers both.
    const spellings = [ip, parseAddress(canonical(ip))!];
    return this.opts.allowed.some((p) => {
      if (p.port !== null && p.port !== port) return false;
      // Matched by family (node's BlockList would let an IPv4 address match an IPv4-mapped IPv6 block).
      if (p.block) return spellings.some((a) => inRange(a, ipaddr.parseCIDR(p.host)));
      return p.host === host.toLowerCase() || spellings.some((a) => a.toString() === unmapped(p.host));
    });
  }

  /** An address passes when it, and every IPv4 address it leads to, is public and not this machine's, or is listed. */
  private allowed(host: string, address: string, port: number, local: Set<string>): boolean {
    const ip = parseAddress(address);
    if (!ip) return false;
    const restricted = (a: Ip) => rangeKind(a) !== 'public' || local.has(canonical(a));
    return [ip, ...carriedIPv4(ip)].every((a) => !restricted(a) || this.listed(host, a, port));
  }

  /** Addresses that are the catalog's server: its own, and, when it runs on this machine, every local address. */
  private async catalogAddresses(local: Set<string>): Promise<Set<string>> {
    if (!this.opts.catalog) return new Set();
    const own = await this.addressesOf(this.opts.catalog.host).catch(() => [] as string[]);
    const onThisMachine = own.some((a) => addressKind(a) === 'loopback' || addressKind(a) === 'unspecified' || local.has(unmapped(a)));
    return new Set([...own.map(unmapped), ...(onThisMachine ? ['loopback', ...local] : [])]);
  }

  private async addressesOf(host: string): Promise<string[]> {
    return isIP(host) ? [host] : this.resolve(host);
  }

  /**
   * The address to connect to for `host:port`, or a 422 that names STUDIO_CONNECTION_HOSTS. Every address
   * the name resolves to must pass, so a name cannot hide a loopback answer behind a public one.
   */
  async check(host: string, port: number): Promise<string> {
    let addresses: string[];
    try {
      addresses = await this.addressesOf(host);
    } catch {
      throw new StudioError(422, `Could not connect: the host ${host} was not found`);
    }
    if (!addresses.length) throw new StudioError(422, `Could not connect: the host ${host} was not found`);
    const local = this.localAddresses();
    const catalog = await this.catalogAddresses(local);
    for (const address of addresses) {
      const plain = unmapped(address);
      const kind = addressKind(plain);
      const isCatalog = this.opts.catalog !== null && port === this.opts.catalog.port && (catalog.has(plain) || (catalog.has('loopback') && kind === 'loopback'));
      if (isCatalog) throw new StudioError(422, `Connections to ${host}:${port} are not allowed: it is the studio's own catalog database`);
      if (!this.allowed(host, address, port, local)) {
        throw new StudioError(
          422,
          `Connections to ${host}:${port} are not allowed: private, loopback and link-local addresses must be listed in STUDIO_CONNECTION_HOSTS`,
        );
      }
    }
    return addresses[0]!;
  }
}
