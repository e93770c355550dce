import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { STORES, useStudio, type Who } from './harness';

const PASSWORD = 'pg-Pa55word-never-shown';
const CASES = [
  ['postgres', { type: 'postgres', name: 'Warehouse', host: 'db.example.com', database: 'geo', user: 'analyst', credentials: { password: PASSWORD } }, { port: 5432, sslmode: 'verify-full', sshPort: 22 }],
  ['redshift', { type: 'redshift', name: 'RS', host: 'rs.example.com', database: 'dev', user: 'u', credentials: { password: PASSWORD } }, { port: 5439 }],
  ['snowflake', { type: 'snowflake', name: 'SF', account: 'acme-1', warehouse: 'COMPUTE_WH', user: 'u', credentials: { privateKey: PASSWORD } }, { warehouse: 'COMPUTE_WH' }],
  ['bigquery', { type: 'bigquery', name: 'BQ', projectId: 'acme-geo', credentials: { serviceAccountKey: { private_key: PASSWORD } } }, { projectId: 'acme-geo' }],
  ['s3', { type: 's3', name: 'Lake', bucket: 'acme-lake', region: 'us-east-1', credentials: { accessKeyId: 'AKIA1', secretAccessKey: PASSWORD } }, { bucket: 'acme-lake' }],
  ['gcs', { type: 'gcs', name: 'GCS', bucket: 'acme-gcs' }, { bucket: 'acme-gcs' }],
  ['planet', { type: 'planet', name: 'Planet', credentials: { token: PASSWORD } }, {}],
  ['motherduck', { type: 'motherduck', name: 'MD', database: 'my_db', credentials: { token: PASSWORD } }, { database: 'my_db' }],
] as const;

describe.each(STORES)('data connections on %s', (kind) => {
  const studio = useStudio(kind);
  const { as, rowOf } = studio;
  const create = (body: unknown) => studio.create('/v1/data-connections', body);

  it.each(CASES)('creates, reads, saves and deletes a %s connection; credentials sealed and never answered', async (type, body, config) => {
    const item = await create(body);
    const hasCredentials = 'credentials' in body;
    expect(item).toMatchObject({ type: 'data-connection', connectionType: type, config, hasCredentials, parentId: null });
    expect(item.credentials).toBeUndefined();
    const read = await as('owner', 'GET', `/v1/data-connections/${item.id}`);
    const list = await as('owner', 'GET', `/v1/data-connections?types=${type}`);
    for (const res of [read, list]) expect(res.body).not.toContain(PASSWORD);
    expect(list.json().items.map((i: { id: string }) => i.id)).toContain(item.id);
    const row = await rowOf(item.id);
    expect(JSON.stringify(row)).not.toContain(PASSWORD);
    if (hasCredentials) expect(JSON.parse(studio.ctx.s.services.secrets.decrypt((row.attrs as { credentials: string }).credentials))).toEqual(body.credentials);
    const { credentials: _c, ...withoutCredentials } = body as { credentials?: unknown };
    const saved = await as('owner', 'PUT', `/v1/data-connections/${item.id}`, { ...withoutCredentials, name: 'Renamed' });
    expect(saved.json().item).toMatchObject({ name: 'Renamed', hasCredentials });
    const cleared = await as('owner', 'PUT', `/v1/data-connections/${item.id}`, { ...withoutCredentials, credentials: null });
    expect(cleared.json().item.hasCredentials).toBe(false);
    expect((await as('owner', 'DELETE', `/v1/data-connections/${item.id}`)).statusCode).toBe(204);
    expect((await as('owner', 'GET', `/v1/data-connections/${item.id}`)).statusCode).toBe(404);
  });

  it('filters by repeated types and lists for the organization', async () => {
    const pg = await create(CASES[0][1]);
    const s3 = await create(CASES[4][1]);
    const sf = await create(CASES[2][1]);
    const ids = async (url: string, who: Who = 'owner') => (await as(who, 'GET', url)).json().items.map((i: { id: string }) => i.id);
    const both = await ids('/v1/data-connections?types=postgres&types=s3');
    expect(both).toEqual(expect.arrayContaining([pg.id, s3.id]));
    expect(both).not.toContain(sf.id);
    expect(await ids('/v1/data-connections/for-organization', 'colleague')).toEqual(expect.arrayContaining([pg.id, s3.id, sf.id]));
    expect((await as('owner', 'GET', '/v1/data-connections?types=oracle')).statusCode).toBe(422);
  });

  it('answers child connections of a database, and refuses storage connections', async () => {
    const parent = await create(CASES[0][1]);
    const child = await create({ ...CASES[0][1], name: 'public schema', parentId: parent.id });
    const children = await as('owner', 'GET', `/v1/data-connections/${parent.id}/connections`);
    expect(children.json().items).toEqual([expect.objectContaining({ id: child.id, parentId: parent.id, connectionType: 'postgres' })]);
    const bucket = await create(CASES[4][1]);
    const refused = await as('owner', 'GET', `/v1/data-connections/${bucket.id}/connections`);
    expect([refused.statusCode, refused.json().message]).toEqual([422, 'Not a database connection']);
    const orphan = await as('owner', 'POST', '/v1/data-connections', { ...CASES[0][1], parentId: randomUUID() });
    expect([orphan.statusCode, orphan.json().message]).toEqual([404, 'Parent connection not found']);
    const loop = await as('owner', 'PUT', `/v1/data-connections/${parent.id}`, { ...CASES[0][1], parentId: child.id });
    expect([loop.statusCode, loop.json().message]).toEqual([422, 'A connection cannot be its own parent']);
  });

  it('answers the datasets read through a connection, as the caller may see them', async () => {
    const conn = await create(CASES[0][1]);
    const mk = async (owner: string, name: string, key = 'dataConnectionId') => {
      const id = randomUUID();
      await studio.ctx.s.services.db.insertInto('resources').values({ id, type: 'dataset', owner_id: owner, organization_id: null, name, attrs: JSON.stringify({ [key]: conn.id }) }).execute();
      return id;
    };
    const mine = await mk(studio.ctx.cast.users.owner.id, 'mine');
    const legacy = await mk(studio.ctx.cast.users.owner.id, 'legacy', 'connectionId');
    const theirs = await mk(studio.ctx.cast.users.outsider.id, 'theirs');
    const res = await as('owner', 'GET', `/v1/data-connections/${conn.id}/datasets`);
    const ids = res.json().items.map((i: { id: string }) => i.id);
    expect(ids).toEqual([legacy, mine]);
    expect(ids).not.toContain(theirs);
  });

  it.each([
    ['an unknown type', { type: 'oracle', name: 'x' }],
    ['postgres without a host', { type: 'postgres', name: 'x', database: 'd', user: 'u' }],
    ['a bad port', { type: 'postgres', name: 'x', host: 'h', port: 70000, database: 'd', user: 'u' }],
    ['a host with spaces', { type: 'postgres', name: 'x', host: 'a b', database: 'd', user: 'u' }],
    ['s3 without a bucket', { type: 's3', name: 'x', region: 'us-east-1' }],
    ['empty credentials', { type: 'gcs', name: 'x', bucket: 'abc', credentials: {} }],
    ['unknown credential fields', { type: 'gcs', name: 'x', bucket: 'abc', credentials: { pin: '1' } }],
  ])('refuses %s (422) and changes nothing', async (_label, body) => {
    const before = (await as('owner', 'GET', '/v1/data-connections')).json().total;
    const res = await as('owner', 'POST', '/v1/data-connections', body);
    expect(res.statusCode).toBe(422);
    expect((await as('owner', 'GET', '/v1/data-connections')).json().total).toBe(before);
    const conn = await create(CASES[0][1]);
    const row = await rowOf(conn.id);
    expect((await as('owner', 'PUT', `/v1/data-connections/${conn.id}`, body)).statusCode).toBe(422);
    expect(await rowOf(conn.id)).toEqual(row);
  });
});
