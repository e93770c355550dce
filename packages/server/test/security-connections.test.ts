import net from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { NetworkReach, addressKind, parseHostPatterns, type Resolver } from '../src/services/network-reach';
import { PG_ADMIN_URL, STORES, seedCast, startStudio, useWarehouse, warehouseConnection, type TestStudio } from './harness';

/**
 * #11 item 3: data connections cannot reach the internal network. The address rules are checked on
 * addresses without connecting (an injected resolver, no DNS); live cases only touch 127.0.0.0/8.
 */

describe('address kinds', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.10', 'private'],
    ['100.64.0.1', 'private'],
    ['fd12:3456::1', 'private'],
    ['::ffff:10.0.0.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['172.32.0.1', 'public'],
    ['8.8.8.8', 'public'],
    ['100.128.0.1', 'public'],
    ['2001:4860:4860::8888', 'public'],
  ])('%s is %s', (address, kind) => expect(addressKind(address)).toBe(kind));
});

describe('STUDIO_CONNECTION_HOSTS patterns', () => {
  it.each([
    ['', []],
    ['127.0.0.1:5432', [{ host: '127.0.0.1', port: 5432 }]],
    ['warehouse.internal, 10.0.0.0/8:5439 ,[::1]:*', [{ host: 'warehouse.internal', port: null }, { host: '10.0.0.0/8', port: 5439 }, { host: '::1', port: null }]],
  ])('reads %j', (value, expected) => expect(parseHostPatterns(value).map(({ host, port }) => ({ host, port }))).toEqual(expected));

  it.each(['a b', 'host:0', 'host:99999', 'not-an-address/8'])('refuses %j at start, naming the variable', (value) =>
    expect(() => parseHostPatterns(value)).toThrow(/STUDIO_CONNECTION_HOSTS/));
});

describe('the reach rule, without connecting', () => {
  const names: Record<string, string[]> = {
    'warehouse.example.com': ['93.184.215.14'],
    'sneaky.example.com': ['93.184.215.15', '127.0.0.1'],
    'metadata.example.com': ['169.254.169.254'],
    'dw.internal': ['10.20.30.40'],
    'catalog.internal': ['10.9.9.9'],
    localhost: ['127.0.0.1', '::1'],
  };
  const resolve: Resolver = async (host) => {
    const found = names[host];
    if (!found) throw new Error(`ENOTFOUND ${host}`);
    return found;
  };
  const reach = (allowed: string, catalog: string | null = null) =>
    NetworkReach.fromConfig({ connectionHosts: parseHostPatterns(allowed), databaseUrl: catalog }, resolve);
  const NOT_LISTED = /must be listed in STUDIO_CONNECTION_HOSTS/;
  const CATALOG = /the studio's own catalog database/;

  it.each([
    ['a public name', '', 'warehouse.example.com', 5432, '93.184.215.14'],
    ['a public address', '', '93.184.215.7', 5432, '93.184.215.7'],
    ['a listed private name', 'dw.internal:5432', 'dw.internal', 5432, '10.20.30.40'],
    ['a private address in a listed block', '10.0.0.0/8', 'dw.internal', 5439, '10.20.30.40'],
    ['a listed loopback address on any port', '127.0.0.1:*', '127.0.0.1', 6000, '127.0.0.1'],
  ])('lets through %s, answering the address to connect to', async (_n, allowed, host, port, address) =>
    expect(await reach(allowed).check(host, port)).toBe(address));

  it.each([
    ['loopback', '', '127.0.0.1', 5432, NOT_LISTED],
    ['loopback, IPv6', '', '::1', 5432, NOT_LISTED],
    ['loopback hidden as IPv4-mapped IPv6', '', '::ffff:127.0.0.1', 5432, NOT_LISTED],
    ['a name with one loopback answer among public ones', '', 'sneaky.example.com', 5432, NOT_LISTED],
    ['cloud metadata (link-local)', '', 'metadata.example.com', 80, NOT_LISTED],
    ['a private name not listed', '', 'dw.internal', 5432, NOT_LISTED],
    ['a listed host on another port', 'dw.internal:5432', 'dw.internal', 5433, NOT_LISTED],
    ['the unspecified address', '', '0.0.0.0', 5432, NOT_LISTED],
    ['an unknown name', '', 'nowhere.example.com', 5432, /was not found/],
  ])('refuses %s', async (_n, allowed, host, port, message) => {
    await expect(reach(allowed).check(host, port)).rejects.toMatchObject({ status: 422, message: expect.stringMatching(message) });
  });

  it.each([
    ['by address, even when listed', 'postgres://studio@10.9.9.9:5432/catalog', '10.9.9.9:5432', '10.9.9.9', 5432],
    ['by name resolving to it', 'postgres://studio@10.9.9.9:5432/catalog', 'catalog.internal:5432', 'catalog.internal', 5432],
    ['on this machine, through any loopback address', 'postgres://studio@localhost:5432/catalog', '127.0.0.0/8', '127.0.0.2', 5432],
  ])('refuses the catalog server %s', async (_n, catalog, allowed, host, port) => {
    await expect(reach(allowed, catalog).check(host, port)).rejects.toMatchObject({ status: 422, message: expect.stringMatching(CATALOG) });
  });

  it('lets a listed server on the catalog machine through on another port', async () => {
    expect(await reach('127.0.0.1:6543', 'postgres://studio@127.0.0.1:5432/catalog').check('127.0.0.1', 6543)).toBe('127.0.0.1');
  });
});

/**
 * A TCP server on loopback that counts connections: with a banner it is an open port that answers, without
 * one it never answers (as a filtered port looks from outside); closed once listened, it is a closed port.
 */
async function countingServer(banner?: string): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  let n = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    n++;
    sockets.add(socket);
    if (banner) socket.write(banner);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    connections: () => n,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

const WAREHOUSE = useWarehouse('studio_reach', `create table t (a int); insert into t values (1);`);

describe.each(STORES)('data connections and the internal network on %s', (kind) => {
  let s: TestStudio;
  let cast: Awaited<ReturnType<typeof seedCast>>;
  let hanging: Awaited<ReturnType<typeof countingServer>>;
  let answering: Awaited<ReturnType<typeof countingServer>>;
  const call = (who: 'owner' | 'admin' | 'outsider', method: string, url: string, payload?: unknown) =>
    s.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { authorization: cast.tokens[who] } });
  const test = (body: object) => call('owner', 'POST', '/v1/test-connection', { type: 'postgres', database: 'postgres', user: 'postgres', sslmode: 'disable', ...body });

  beforeAll(async () => {
    hanging = await countingServer();
    answering = await countingServer('SSH-2.0-OpenSSH_9.2\r\n');
    s = await startStudio(kind);
    cast = await seedCast(s);
  });
  afterAll(async () => {
    await s?.dispose();
    await hanging?.close();
    await answering?.close();
  });

  it('refuses a loopback port that is open, closed or never answers with one message, at once, sending nothing', async () => {
    const closed = await countingServer();
    await closed.close();
    // None is listed for this studio (only the test warehouse server is).
    const cases = [
      ['open and answering', '127.0.0.1', answering.port],
      ['closed', '127.0.0.1', closed.port],
      ['open and never answering', '127.0.0.1', hanging.port],
      ['another loopback address of the listed warehouse port', '127.0.0.2', inject('warehouseServer').port],
    ] as const;
    const answers = [];
    for (const [, host, port] of cases) {
      const started = performance.now();
      const res = await test({ host, port });
      answers.push({ status: res.statusCode, message: res.json().message.replace(`${host}:${port}`, 'HOST'), ms: performance.now() - started });
    }
    expect(new Set(answers.map((a) => `${a.status} ${a.message}`))).toEqual(
      new Set(['422 Connections to HOST are not allowed: private, loopback and link-local addresses must be listed in STUDIO_CONNECTION_HOSTS']),
    );
    // A refusal costs no round trip: far below the 5 s connect timeout a filtered port would take.
    for (const a of answers) expect(a.ms).toBeLessThan(1000);
    expect(hanging.connections() + answering.connections()).toBe(0);
  });

  it("never reaches the catalog's own server, even when an administrator lists it", async () => {
    const catalog = new URL(PG_ADMIN_URL);
    const listed = await startStudio(kind, { connectionHosts: parseHostPatterns(`${catalog.hostname}:${catalog.port || 5432}`) });
    try {
      const owner = (await seedCast(listed)).tokens.owner;
      const res = await listed.app.inject({
        method: 'POST', url: '/v1/test-connection', headers: { authorization: owner },
        payload: { type: 'postgres', host: catalog.hostname, port: Number(catalog.port || 5432), database: 'postgres', user: 'postgres', sslmode: 'disable' },
      });
      expect(res.statusCode).toBe(422);
      // On PostgreSQL the catalog is that server; on PGlite the same server holds no catalog but its
      // `postgres` role is a superuser, refused before any query.
      expect(res.json().message).toMatch(kind === 'postgres' ? /the studio's own catalog database/ : /may read the server's files or run programs/);
    } finally {
      await listed.dispose();
    }
  });

  it('refuses a superuser session before any query, and lets the same server through for a plain role', async () => {
    const plain = warehouseConnection(WAREHOUSE);
    const superuser = await test({ ...plain, user: 'postgres' });
    expect([superuser.statusCode, superuser.json().message]).toEqual([
      422,
      "The role postgres may read the server's files or run programs on it (a superuser, or a member of pg_read_server_files, pg_write_server_files or pg_execute_server_program): connect with a role without those rights",
    ]);
    const ok = await test(plain);
    expect([ok.statusCode, ok.json().item?.ok]).toEqual([200, true]);
  });

  it('refuses a saved connection at query time and lists it for administrators only', async () => {
    const saved = (await call('owner', 'POST', '/v1/data-connections', { type: 'postgres', name: 'Old internal DW', host: '10.0.0.5', port: 5432, database: 'dw', user: 'analyst', sslmode: 'disable' })).json().item;
    const allowed = (await call('owner', 'POST', '/v1/data-connections', { ...warehouseConnection(WAREHOUSE), name: 'Listed warehouse' })).json().item;
    const run = await call('owner', 'POST', '/v1/test-connection', { connectionId: saved.id });
    expect([run.statusCode, run.json().message]).toEqual([422, 'Connections to 10.0.0.5:5432 are not allowed: private, loopback and link-local addresses must be listed in STUDIO_CONNECTION_HOSTS']);
    const list = await call('admin', 'GET', '/v1/admin/refused-connections');
    expect(list.statusCode).toBe(200);
    const ids = list.json().items.map((c: { id: string }) => c.id);
    expect(ids).toContain(saved.id);
    expect(ids).not.toContain(allowed.id);
    expect(list.json().items.find((c: { id: string }) => c.id === saved.id)).toMatchObject({ name: 'Old internal DW', connectionType: 'postgres', host: '10.0.0.5', port: 5432, reason: expect.stringContaining('STUDIO_CONNECTION_HOSTS') });
    expect((await call('owner', 'GET', '/v1/admin/refused-connections')).statusCode).toBe(403);
  });
});
