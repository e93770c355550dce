import net from 'node:net';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NetworkReach, addressKind, parseHostPatterns } from '../src/services/network-reach';
import { STORES, seedCast, startStudio, type TestStudio } from './harness';

/**
 * #45 reproduction 8: the network rule, complete. Only public unicast addresses pass on their own: this
 * machine's interface addresses and every IANA special-use and reserved range are refused like loopback
 * unless STUDIO_CONNECTION_HOSTS lists them, and so is an IPv6 form carrying a refused IPv4 address.
 * The rule is checked on addresses without connecting; the live cases bind this machine's own addresses.
 */

const NOT_LISTED = 'private, loopback and link-local addresses must be listed in STUDIO_CONNECTION_HOSTS';
const refusal = (host: string, port: number) => `Connections to ${host}:${port} are not allowed: ${NOT_LISTED}`;
const noLocal = () => [] as string[];
const reach = (allowed = '', localAddresses = noLocal) => NetworkReach.fromConfig({ connectionHosts: parseHostPatterns(allowed), databaseUrl: null }, undefined, localAddresses);

/** The address to connect to when `passes`, else the loopback refusal. */
async function passesOrNot(rule: NetworkReach, address: string, passes: boolean) {
  const answer = rule.check(address, 5432);
  if (passes) expect(await answer).toBe(address);
  else await expect(answer).rejects.toMatchObject({ status: 422, message: refusal(address, 5432) });
}

/** Each range of the IANA special-purpose registries (and the unallocated ones), by addresses at its edges and inside. */
const REFUSED: [range: string, kind: string, addresses: string[]][] = [
  ['0.0.0.0/8 this network', 'unspecified', ['0.0.0.0', '0.1.2.3', '0.255.255.255']],
  ['10.0.0.0/8 private', 'private', ['10.0.0.0', '10.255.255.255']],
  ['100.64.0.0/10 shared (CGNAT)', 'private', ['100.64.0.0', '100.127.255.255']],
  ['127.0.0.0/8 loopback', 'loopback', ['127.0.0.1', '127.255.255.254']],
  ['169.254.0.0/16 link-local', 'link-local', ['169.254.0.1', '169.254.169.254']],
  ['172.16.0.0/12 private', 'private', ['172.16.0.0', '172.31.255.255']],
  ['192.0.0.0/24 IETF protocol assignments', 'special-use', ['192.0.0.0', '192.0.0.8', '192.0.0.255']],
  ['192.0.2.0/24 documentation (TEST-NET-1)', 'special-use', ['192.0.2.0', '192.0.2.2', '192.0.2.255']],
  ['192.88.99.0/24 6to4 relay anycast', 'special-use', ['192.88.99.1', '192.88.99.255']],
  ['192.168.0.0/16 private', 'private', ['192.168.0.1', '192.168.255.255']],
  ['198.18.0.0/15 benchmarking', 'special-use', ['198.18.0.0', '198.19.255.255']],
  ['198.51.100.0/24 documentation (TEST-NET-2)', 'special-use', ['198.51.100.1', '198.51.100.255']],
  ['203.0.113.0/24 documentation (TEST-NET-3)', 'special-use', ['203.0.113.0', '203.0.113.10']],
  ['224.0.0.0/4 multicast', 'multicast', ['224.0.0.1', '239.255.255.250']],
  ['240.0.0.0/4 reserved', 'reserved', ['240.0.0.1', '255.255.255.254']],
  ['255.255.255.255 broadcast', 'broadcast', ['255.255.255.255']],
  ['::/128 unspecified', 'unspecified', ['::', '0:0:0:0:0:0:0:0']],
  ['::1/128 loopback', 'loopback', ['::1', '0:0:0:0:0:0:0:1']],
  ['::ffff:0:0/96 IPv4-mapped', 'special-use', ['::ffff:8.8.8.8', '::ffff:808:808']],
  ['::ffff:0:0/96 IPv4-mapped, carrying loopback', 'loopback', ['::ffff:127.0.0.1', '::ffff:7f00:1', '0:0:0:0:0:ffff:7f00:1']],
  ['::/96 IPv4-compatible, carrying loopback', 'loopback', ['::127.0.0.1', '::7f00:1']],
  ['::/96 IPv4-compatible, carrying a private address', 'private', ['::10.0.0.1']],
  ['64:ff9b::/96 NAT64', 'special-use', ['64:ff9b::808:808', '64:ff9b::8.8.4.4']],
  ['64:ff9b::/96 NAT64, carrying loopback', 'loopback', ['64:ff9b::7f00:1', '64:ff9b::127.0.0.1']],
  ['64:ff9b::/96 NAT64, carrying cloud metadata', 'link-local', ['64:ff9b::a9fe:a9fe']],
  ['64:ff9b:1::/48 local NAT64', 'special-use', ['64:ff9b:1::1', '64:ff9b:1:ffff::808:808']],
  ['100::/64 discard', 'special-use', ['100::', '100::ffff:ffff:ffff:ffff']],
  ['2001::/23 IETF protocol assignments (Teredo, ORCHID, AMT, …)', 'special-use', ['2001:1::1', '2001:2::1', '2001:20::1', '2001:1ff:ffff::1']],
  ['2001::/32 Teredo, carrying loopback', 'loopback', ['2001:0:7f00:1::1']],
  ['2001:db8::/32 documentation', 'special-use', ['2001:db8::1', '2001:db8:ffff:ffff::1']],
  ['2002::/16 6to4', 'special-use', ['2002:808:808::1']],
  ['2002::/16 6to4, carrying loopback', 'loopback', ['2002:7f00:1::1', '2002:7f00:1:0:0:0:0:1']],
  ['2002::/16 6to4, carrying a private address', 'private', ['2002:c0a8:101::1']],
  ['3fff::/20 documentation', 'special-use', ['3fff::1']],
  ['fc00::/7 unique local', 'private', ['fc00::1', 'fd12:3456::1']],
  ['fe80::/10 link-local', 'link-local', ['fe80::1', 'fe80::1%eth0', 'febf::1']],
  ['ff00::/8 multicast', 'multicast', ['ff02::1', 'ff0e::fb']],
  ['outside 2000::/3, unallocated', 'reserved', ['4000::1', 'fec0::1', '5f00::1']],
];

const PUBLIC = ['8.8.8.8', '1.1.1.1', '100.128.0.1', '172.32.0.1', '192.0.3.1', '192.88.100.1', '198.20.0.1', '223.255.255.255', '2001:4860:4860::8888', '2606:4700::1111', '2001:200::1'];

describe('the network rule, by address', () => {
  it.each(REFUSED.flatMap(([range, kind, addresses]) => addresses.map((a) => [range, a, kind] as const)))('%s: %s is refused (%s)', async (_range, address, kind) => {
    expect(addressKind(address)).toBe(kind);
    await expect(reach().check(address, 5432)).rejects.toMatchObject({ status: 422, message: refusal(address, 5432) });
  });

  it.each(PUBLIC)('%s is public and passes', async (address) => {
    expect(addressKind(address)).toBe('public');
    expect(await reach().check(address, 5432)).toBe(address);
  });

  it.each([
    ['a listed special-use block', '198.18.0.0/15', '198.18.4.5', true],
    ['a listed address, through its IPv4-mapped form', '127.0.0.1:5432', '::ffff:127.0.0.1', true],
    ['a listed NAT64 block carrying a public address', '[64:ff9b::/96]', '64:ff9b::808:808', true],
    ['a listed NAT64 block carrying loopback', '[64:ff9b::/96]', '64:ff9b::7f00:1', false],
    ['a listed NAT64 block carrying loopback, the loopback listed too', '[64:ff9b::/96],127.0.0.1', '64:ff9b::7f00:1', true],
    ['a listed 6to4 block carrying a public address', '[2002::/16]', '2002:808:808::1', true],
    ['a listed 6to4 block carrying loopback', '[2002::/16]', '2002:7f00:1::1', false],
    ['a listed Teredo block carrying a private server', '[2001::/32]', '2001:0:a00:1::1', false],
    ['a listed IPv4-mapped block carrying a private address', '[::ffff:0:0/96]', '::ffff:10.0.0.1', false],
  ])('%s: %s', async (_n, allowed, address, passes) => {
    await passesOrNot(reach(allowed), address, passes);
  });

  // This machine's addresses, whatever their range: a public one (a server with a public interface) too.
  const local = () => ['127.0.0.1', '::1', '8.8.4.4', '2606:4700:4700::1001', 'fe80::1%eth0'];
  it.each([
    ['its public IPv4 address', '', '8.8.4.4', false],
    ['its public IPv6 address', '', '2606:4700:4700::1001', false],
    ['its public IPv6 address, written long', '', '2606:4700:4700:0:0:0:0:1001', false],
    ['its public IPv4 address in IPv4-mapped form, the mapped block listed', '[::ffff:0:0/96]', '::ffff:8.8.4.4', false],
    ['its public IPv4 address through NAT64, the NAT64 block listed', '[64:ff9b::/96]', '64:ff9b::808:404', false],
    ['its public IPv4 address, listed', '8.8.4.4', '8.8.4.4', true],
    ['its public IPv6 address, listed in a block', '[2606:4700::/32]:5432', '2606:4700:4700::1001', true],
    ['another public address', '', '8.8.8.8', true],
  ])("this machine's own addresses: %s (%s)", async (_n, allowed, address, passes) => {
    await passesOrNot(reach(allowed, local), address, passes);
  });

  it("refuses a name with one answer among public ones that is this machine's", async () => {
    const named = NetworkReach.fromConfig({ connectionHosts: [], databaseUrl: null }, async () => ['8.8.8.8', '8.8.4.4'], local);
    await expect(named.check('warehouse.example.com', 443)).rejects.toMatchObject({ status: 422, message: refusal('warehouse.example.com', 443) });
  });
});

/** This machine's own addresses other than loopback and link-local (the latter need a zone to be dialled). */
const OWN = Object.values(os.networkInterfaces())
  .flatMap((list) => list ?? [])
  .filter((i) => !i.internal && !i.address.startsWith('fe80:'))
  .map((i) => i.address);

/** A TCP server on every interface (as a service bound to 0.0.0.0 is) that counts connections and greets each one. */
async function serverOnAllInterfaces(): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  let n = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    n++;
    sockets.add(socket);
    socket.end('SSH-2.0-OpenSSH_9.2\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '::', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => n,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Connections naming an address: PostgreSQL (its form takes IPv4 or a name) and Kinetica (a URL, IPv6 in brackets). */
const DRIVERS = {
  postgres: (host: string, port: number) => ({ type: 'postgres', host, port, database: 'postgres', user: 'analyst', sslmode: 'disable' }),
  kinetica: (host: string, port: number) => ({ type: 'kinetica', url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`, user: 'analyst', credentials: { password: 'pw' } }),
};
const CASES = OWN.flatMap((address) => (['postgres', 'kinetica'] as const).filter((d) => d === 'kinetica' || !address.includes(':')).map((driver) => [address, driver] as const));

describe.each(STORES)("data connections to this machine's own interface addresses on %s", (kind) => {
  let s: TestStudio;
  let owner: string;
  let service: Awaited<ReturnType<typeof serverOnAllInterfaces>>;
  const test = (studio: TestStudio, token: string, host: string, driver: keyof typeof DRIVERS) =>
    studio.app.inject({ method: 'POST', url: '/v1/test-connection', headers: { authorization: token }, payload: DRIVERS[driver](host, service.port) });

  beforeAll(async () => {
    service = await serverOnAllInterfaces();
    s = await startStudio(kind);
    owner = (await seedCast(s)).tokens.owner;
  });
  afterAll(async () => {
    await s?.dispose();
    await service?.close();
  });

  it('this machine has an address other than loopback to try', () => expect(OWN.length).toBeGreaterThan(0));

  it.each(CASES)('refuses %s (%s) with the loopback message, sending nothing', async (address, driver) => {
    const res = await test(s, owner, address, driver);
    expect([res.statusCode, res.json().message]).toEqual([422, refusal(address, service.port)]);
    expect(service.connections()).toBe(0);
  });

  it.each(CASES)('lets %s (%s) through when STUDIO_CONNECTION_HOSTS lists it', async (address, driver) => {
    const listed = await startStudio(kind, { connectionHosts: parseHostPatterns(`${address.includes(':') ? `[${address}]` : address}:${service.port}`) });
    try {
      const before = service.connections();
      const res = await test(listed, (await seedCast(listed)).tokens.owner, address, driver);
      // The greeting is neither PostgreSQL nor HTTP: the connection reached the service and failed there.
      expect(res.statusCode).toBe(422);
      expect(res.json().message).not.toContain('STUDIO_CONNECTION_HOSTS');
      expect(service.connections()).toBe(before + 1);
    } finally {
      await listed.dispose();
    }
  });
});
