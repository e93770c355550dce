import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { sql } from 'kysely';
import { randomUUID } from 'node:crypto';
import { up as sslmodeMigration } from '../src/store/migrations/008-pg-sslmode';
import { parseHostPatterns } from '../src/services/network-reach';
import { startBastion } from '../../warehouses/test/servers/ssh';
import { STORES, seedCast, startStudio, useWarehouse, warehouseConnection, type TestStudio } from './harness';

/**
 * PostgreSQL connections with TLS verified against an uploaded CA certificate, and through an SSH host
 * (a bastion on a loopback port that alone resolves the warehouse's name), through the API as users make
 * them: saved, tested, queried; the private key never answered.
 */
const WAREHOUSE = useWarehouse('studio_tls', 'create table spots (id int, name text); insert into spots values (1, $$Pier 39$$), (2, $$Dolores Park$$);');
const ENCRYPTED = 'select s.ssl, count(*) as spots from pg_stat_ssl s, spots where s.pid = pg_backend_pid() group by 1';

let bastion: Awaited<ReturnType<typeof startBastion>>;
beforeAll(async () => {
  bastion = await startBastion({ user: 'tunnel', password: 'never-used', names: { 'warehouse.internal': '127.0.0.1' } });
});
afterAll(() => bastion?.close());

describe.each(STORES)('TLS and SSH tunnels on %s', (kind) => {
  let s: TestStudio;
  let cast: Awaited<ReturnType<typeof seedCast>>;
  const call = (method: string, url: string, payload?: unknown) => s.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { authorization: cast.tokens.owner } });
  const run = async (connectionId: string) => (await call('POST', '/v1/data-queries/json', { connectionId, query: ENCRYPTED })).json();

  beforeAll(async () => {
    const { host, port } = inject('warehouseServer');
    // The warehouse server and the bastion are the loopback endpoints data connections may reach.
    s = await startStudio(kind, { connectionHosts: parseHostPatterns(`${host}:${port},127.0.0.1:${bastion.port}`) });
    cast = await seedCast(s);
  });
  afterAll(async () => s?.dispose());

  it('verify-full with the CA certificate the connection carries: tested and queried over TLS', async () => {
    const body = { ...warehouseConnection(WAREHOUSE), sslmode: 'verify-full', caCertificate: inject('warehouseServer').caCertificate, name: 'Checked TLS' };
    const saved = await call('POST', '/v1/data-connections', body);
    expect(saved.statusCode, saved.body).toBe(201);
    expect(saved.json().item.config).toMatchObject({ sslmode: 'verify-full', caCertificate: body.caCertificate.trim() });
    expect((await call('POST', '/v1/test-connection', { connectionId: saved.json().item.id })).json().item.ok).toBe(true);
    expect((await run(saved.json().item.id)).items).toEqual([{ ssl: true, spots: 2 }]);
    // Without the CA the same server is refused, with TLS's own words.
    const { caCertificate: _ca, ...unchecked } = body;
    const refused = await call('POST', '/v1/test-connection', unchecked);
    expect([refused.statusCode, refused.json().message]).toEqual([422, 'Could not connect: unable to verify the first certificate']);
    // Text that is not a PEM certificate is refused before anything is saved.
    const bad = await call('POST', '/v1/data-connections', { ...body, caCertificate: 'not a certificate' });
    expect([bad.statusCode, bad.json().message]).toEqual([422, expect.stringContaining('CA certificate must be PEM text')]);
  });

  it('through an SSH host: the bastion reaches the warehouse by a name only it knows; the key is kept secret', async () => {
    const { port, user } = inject('warehouseServer');
    const body = {
      type: 'postgres', name: 'Behind the bastion', host: 'warehouse.internal', port, database: WAREHOUSE, user, sslmode: 'require',
      sshHost: '127.0.0.1', sshPort: bastion.port, sshUser: 'tunnel', sshHostKey: bastion.fingerprint, credentials: { sshPrivateKey: bastion.privateKey },
    };
    const saved = await call('POST', '/v1/data-connections', body);
    expect(saved.statusCode, saved.body).toBe(201);
    const id = saved.json().item.id;
    const got = (await call('GET', `/v1/data-connections/${id}`)).json().item;
    expect(got.hasCredentials).toBe(true);
    expect(JSON.stringify(got)).not.toContain('PRIVATE KEY');
    expect((await call('POST', '/v1/test-connection', { connectionId: id })).json().item.ok).toBe(true);
    expect((await run(id)).items).toEqual([{ ssl: true, spots: 2 }]);
    expect(bastion.forwarded).toContain(`warehouse.internal:${port}`);
    // A bastion the network rule does not list is refused before any packet.
    const elsewhere = await call('POST', '/v1/test-connection', { ...body, sshPort: 9 });
    expect([elsewhere.statusCode, elsewhere.json().message]).toEqual([422, expect.stringContaining('STUDIO_CONNECTION_HOSTS')]);
  });

  it("a connection saved by an older release with `ssl` keeps its meaning as sslmode", async () => {
    const old = async (ssl: boolean) => {
      const id = randomUUID();
      await s.services.db.insertInto('resources').values({
        id, type: 'data-connection', name: `Old ${ssl}`, owner_id: cast.users.owner.id, organization_id: cast.org.id,
        attrs: JSON.stringify({ type: 'postgres', config: { host: 'db.example.com', port: 5432, database: 'geo', user: 'u', ssl } }),
      } as never).execute();
      return id;
    };
    const [on, off] = [await old(true), await old(false)];
    await sslmodeMigration(s.services.db as never);
    const config = async (id: string) => (await sql<{ config: Record<string, unknown> }>`select attrs -> 'config' as config from resources where id = ${id}`.execute(s.services.db)).rows[0]!.config;
    expect(await config(on)).toEqual({ host: 'db.example.com', port: 5432, database: 'geo', user: 'u', sslmode: 'verify-full' });
    expect(await config(off)).toEqual({ host: 'db.example.com', port: 5432, database: 'geo', user: 'u', sslmode: 'disable' });
  });
});
