import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import os from 'node:os';
import { StudioError } from '@studio/schema';

/**
 * Which network addresses a data connection may reach (#11). Every driver asks `check(host, port)`
 * right before it opens a socket, and connects to the address it answers, never to the name again
 * (a second DNS answer could point elsewhere). Loopback, private, shared (CGNAT), link-local and
 * unspecified addresses are refused unless the administrator lists them in STUDIO_CONNECTION_HOSTS;
 * the catalog's own database server is refused even when listed. A refusal happens before any packet
 * is sent, so it answers the same message at once whether the port is open, closed or filtered.
 */

/** One entry of STUDIO_CONNECTION_HOSTS: a host name, an address or a CIDR block, and a port (any when absent or `*`). */
export interface HostPattern {
  host: string;
  /** A CIDR block when the entry is written `address/bits`. */
  block: BlockList | null;
  port: number | null;
}

export type AddressKind = 'loopback' | 'private' | 'link-local' | 'unspecified' | 'public';

const RESTRICTED: [AddressKind, string, number, 'ipv4' | 'ipv6'][] = [
  ['loopback', '127.0.0.0', 8, 'ipv4'],
  ['loopback', '::1', 128, 'ipv6'],
  ['unspecified', '0.0.0.0', 8, 'ipv4'],
  ['unspecified', '::', 128, 'ipv6'],
  ['private', '10.0.0.0', 8, 'ipv4'],
  ['private', '172.16.0.0', 12, 'ipv4'],
  ['private', '192.168.0.0', 16, 'ipv4'],
  ['private', '100.64.0.0', 10, 'ipv4'],
  ['private', 'fc00::', 7, 'ipv6'],
  ['link-local', '169.254.0.0', 16, 'ipv4'],
  ['link-local', 'fe80::', 10, 'ipv6'],
];

/** An IPv4-mapped or IPv4-compatible IPv6 address is judged as the IPv4 address it carries. */
function unmapped(address: string): string {
  const m = /^(?:::ffff:|::)(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (m) return m[1]!;
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (hex) {
    const hi = parseInt(hex[1]!, 16);
    const lo = parseInt(hex[2]!, 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return address;
}

/** The kind of an IP address (literal, as DNS answers it). */
export function addressKind(address: string): AddressKind {
  const ip = unmapped(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  const family = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
  for (const [kind, net, bits, fam] of RESTRICTED) {
    if (fam !== family) continue;
    const list = new BlockList();
    list.addSubnet(net, bits, fam);
    if (list.check(ip, fam)) return kind;
  }
  return 'public';
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

export interface NetworkReachOptions {
  allowed: HostPattern[];
  /** The catalog's PostgreSQL (from DATABASE_URL), never reachable; null on the embedded catalog. */
  catalog: { host: string; port: number } | null;
  resolve?: Resolver;
}

export class NetworkReach {
  private readonly resolve: Resolver;

  constructor(private readonly opts: NetworkReachOptions) {
    this.resolve = opts.resolve ?? systemResolver;
  }

  static fromConfig(config: { connectionHosts: HostPattern[]; databaseUrl: string | null }, resolve?: Resolver): NetworkReach {
    let catalog: NetworkReachOptions['catalog'] = null;
    if (config.databaseUrl) {
      const url = new URL(config.databaseUrl);
      // A socket-directory host (no host in the URL) is this machine.
      catalog = { host: url.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1', port: Number(url.port || 5432) };
    }
    return new NetworkReach({ allowed: config.connectionHosts, catalog, resolve });
  }

  private listed(host: string, address: string, port: number): boolean {
    return this.opts.allowed.some((p) => {
      if (p.port !== null && p.port !== port) return false;
      if (p.block) return p.block.check(unmapped(address), isIP(unmapped(address)) === 6 ? 'ipv6' : 'ipv4');
      return p.host === host.toLowerCase() || p.host === address.toLowerCase() || p.host === unmapped(address);
    });
  }

  /** Addresses that are the catalog's server: its own, and, when it runs on this machine, every local address. */
  private async catalogAddresses(): Promise<Set<string>> {
    if (!this.opts.catalog) return new Set();
    const own = await this.addressesOf(this.opts.catalog.host).catch(() => [] as string[]);
    const local = own.some((a) => addressKind(a) === 'loopback' || addressKind(a) === 'unspecified' || isLocalAddress(a));
    return new Set([...own.map(unmapped), ...(local ? ['loopback', ...localAddresses()] : [])]);
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
    const catalog = await this.catalogAddresses();
    for (const address of addresses) {
      const plain = unmapped(address);
      const kind = addressKind(plain);
      const isCatalog = this.opts.catalog !== null && port === this.opts.catalog.port && (catalog.has(plain) || (catalog.has('loopback') && kind === 'loopback'));
      if (isCatalog) throw new StudioError(422, `Connections to ${host}:${port} are not allowed: it is the studio's own catalog database`);
      if (kind !== 'public' && !this.listed(host, address, port)) {
        throw new StudioError(
          422,
          `Connections to ${host}:${port} are not allowed: private, loopback and link-local addresses must be listed in STUDIO_CONNECTION_HOSTS`,
        );
      }
    }
    return addresses[0]!;
  }
}

function localAddresses(): string[] {
  return Object.values(os.networkInterfaces()).flatMap((list) => (list ?? []).map((i) => unmapped(i.address)));
}

const isLocalAddress = (address: string) => localAddresses().includes(unmapped(address));
