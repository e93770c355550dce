import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SignJWT } from 'jose';
import { STORES, useStudio } from './harness';
import { AuthService } from '../src/services/auth';
import { SdkTokens } from '../src/auth/sdk-tokens';

/**
 * The Studio Data SDK against the studio: a Python script (python3 from Debian with requests, pydantic,
 * PyJWT, pandas) replays every call of the SDK through /sdk and parses each answer with the SDK's models;
 * the token rules (a JWT naming its key, refused once the key is revoked) are checked here.
 */
const PYTHON = '/usr/bin/python3';
const SCRIPT = path.join(import.meta.dirname, 'sdk', 'data_sdk_calls.py');
const run = promisify(execFile);

describe.each(STORES)('Data SDK (%s)', (store) => {
  const { ctx, as } = useStudio(store);
  afterEach(() => vi.useRealTimers());

  const sdkKey = async (who: 'owner' | 'outsider' = 'owner') => {
    const res = await as(who, 'POST', '/v1/api-key', { name: 'Notebook', kind: 'sdk' });
    expect(res.statusCode).toBe(201);
    return res.json().item as { id: string; key: string; kind: string; prefix: string };
  };
  const exchange = (refreshToken: string, grantType = 'refresh_token') =>
    ctx.s.app.inject({ method: 'POST', url: '/sdk/oauth/token', payload: { grant_type: grantType, client_id: 'x', refresh_token: refreshToken } });
  const accessOf = async (refreshToken: string) => {
    const res = await exchange(refreshToken);
    expect(res.statusCode).toBe(200);
    return res.json().access_token as string;
  };
  const sdkGet = (token: string, url: string) => ctx.s.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });

  it('every call of the SDK, from Python, through /sdk', async () => {
    const key = await sdkKey();
    const address = await ctx.s.app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const { stdout } = await run(PYTHON, [SCRIPT], { env: { ...process.env, STUDIO_SDK_BASE_URL: `${address}/sdk`, STUDIO_SDK_REFRESH_TOKEN: key.key }, timeout: 120_000 }).catch((e: { stdout?: string; stderr?: string }) => {
        throw new Error(`the SDK script failed:\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
      });
      const calls = stdout.trim().split('\n').map((l) => JSON.parse(l) as { call: string; ok: boolean });
      expect(calls.every((c) => c.ok)).toBe(true);
      expect(calls.map((c) => c.call)).toEqual([
        'refresh',
        'upload_file csv',
        'upload_file geojson',
        'upload_dataframe',
        'list_datasets',
        'get_dataset_by_id',
        'download_dataset bytes',
        'download_dataset file',
        'download_dataframe csv',
        'download_dataframe of an uploaded dataframe',
        'download_dataset geojson',
        'generate_hextile',
        'generate_vectortile',
        'upload_file dataset= (replace)',
        'generate_hextile target= (in place)',
        'generate_vectortile target= (in place)',
        'create_map',
        'list_maps',
        'get_map_by_id',
        'update_map',
        'delete_map',
        'delete_dataset',
      ]);
    } finally {
      await ctx.s.app.server.close();
    }
  });

  it('an SDK key is a v1. refresh token, listed and revoked with the other keys, and not a bearer token itself', async () => {
    const key = await sdkKey();
    expect([key.kind, key.key.startsWith('v1.'), key.prefix]).toEqual(['sdk', true, key.key.slice(0, 10)]);
    const listed = (await as('owner', 'GET', '/v1/api-key')).json().items as { id: string; kind: string; key?: string }[];
    expect(listed.find((k) => k.id === key.id)).toMatchObject({ kind: 'sdk' });
    expect(listed.find((k) => k.id === key.id)!.key).toBeUndefined();
    const stored = await ctx.s.services.db.selectFrom('api_keys').select('key_hash').where('id', '=', key.id).executeTakeFirstOrThrow();
    expect(stored.key_hash).not.toContain(key.key);
    expect((await sdkGet(key.key, '/sdk/v1/datasets')).statusCode).toBe(401);
  });

  it('answers the OAuth refresh with a JWT whose exp is an hour away and whose jti is the key', async () => {
    const key = await sdkKey();
    const res = await exchange(key.key);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ refresh_token: key.key, expires_in: 3600, token_type: 'Bearer' });
    const claims = JSON.parse(Buffer.from(body.access_token.split('.')[1], 'base64url').toString());
    expect(claims.jti).toBe(key.id);
    expect(claims.sub).toBe(ctx.cast.users.owner.id);
    expect(claims.exp - Math.floor(Date.now() / 1000)).toBeGreaterThan(3590);
    expect((await sdkGet(body.access_token, '/sdk/v1/maps')).statusCode).toBe(200);
  });

  it.each([
    ['an unknown refresh token', 'v1.made-up', 'refresh_token', 401, 'Refresh token is invalid or revoked'],
    ['an API key of the bearer kind', null, 'refresh_token', 401, 'Refresh token is invalid or revoked'],
    ['another grant type', 'v1.made-up', 'password', 422, 'Invalid request body: grant_type: must be refresh_token'],
  ])('refuses %s', async (_label, given, grantType, status, message) => {
    let token = given;
    if (token === null) token = (await as('owner', 'POST', '/v1/api-key', { name: 'Bearer kind' })).json().item.key as string;
    const res = await exchange(token, grantType);
    expect([res.statusCode, res.json().message]).toEqual([status, message]);
  });

  it("refuses a revoked key's refresh and its access tokens at once on this node", async () => {
    const key = await sdkKey();
    const token = await accessOf(key.key);
    expect((await sdkGet(token, '/sdk/v1/datasets')).statusCode).toBe(200);
    expect((await as('owner', 'DELETE', '/v1/api-key', { id: key.id })).statusCode).toBe(204);
    const after = await sdkGet(token, '/sdk/v1/datasets');
    expect([after.statusCode, after.json().message]).toEqual([401, 'API key is invalid or revoked']);
    expect((await exchange(key.key)).statusCode).toBe(401);
  });

  it("refuses a revoked key's access token on another API node within the auth cache's time", async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const other = new AuthService(ctx.s.services.db, ctx.s.services.limits.signIn, 2000, new SdkTokens(ctx.s.services.secrets.sdkTokenKey));
    const key = await sdkKey();
    const token = await accessOf(key.key);
    const resolves = () => other.authenticate(`Bearer ${token}`).then((c) => c?.user.email, (e: Error) => e.message);
    expect(await resolves()).toBe('owner@acme.test');
    await as('owner', 'DELETE', '/v1/api-key', { id: key.id });
    vi.setSystemTime(Date.now() + 2100);
    expect(await resolves()).toBe('API key is invalid or revoked');
  });

  it.each([
    ['expired', async (key: Uint8Array, claims: { sub: string; jti: string }) => new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(claims.sub).setJti(claims.jti).setIssuer('studio').setAudience('studio-sdk').setExpirationTime(Math.floor(Date.now() / 1000) - 10).sign(key)],
    ['signed with another key', async (_key: Uint8Array, claims: { sub: string; jti: string }) => new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(claims.sub).setJti(claims.jti).setIssuer('studio').setAudience('studio-sdk').setExpirationTime('1h').sign(new Uint8Array(32).fill(7))],
    ['unsigned (alg none)', async (_key: Uint8Array, claims: { sub: string; jti: string }) => `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from(JSON.stringify({ ...claims, iss: 'studio', aud: 'studio-sdk', exp: Math.floor(Date.now() / 1000) + 600 })).toString('base64url')}.x`],
    ['naming another user than its key', async (key: Uint8Array, claims: { sub: string; jti: string }) => new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('00000000-0000-4000-8000-000000000000').setJti(claims.jti).setIssuer('studio').setAudience('studio-sdk').setExpirationTime('1h').sign(key)],
  ])('refuses an access token %s', async (_label, make) => {
    const key = await sdkKey();
    const forged = await make(ctx.s.services.secrets.sdkTokenKey, { sub: ctx.cast.users.owner.id, jti: key.id });
    const res = await sdkGet(forged, '/sdk/v1/datasets');
    expect(res.statusCode).toBe(401);
  });

  it("keeps each organization's records to itself: another user's SDK token cannot read, replace or delete them", async () => {
    const ownerToken = await accessOf((await sdkKey('owner')).key);
    const upload = await ctx.s.app.inject({ method: 'POST', url: '/sdk/v1/datasets/data?name=Private', payload: 'a,b\n1,2\n', headers: { authorization: `Bearer ${ownerToken}`, 'content-type': 'text/csv' } });
    expect(upload.statusCode).toBe(201);
    const id = upload.json().id as string;
    const theirs = await accessOf((await sdkKey('outsider')).key);
    const headers = { authorization: `Bearer ${theirs}` };
    expect((await sdkGet(theirs, `/sdk/v1/datasets/${id}`)).statusCode).toBe(404);
    expect((await sdkGet(theirs, `/sdk/v1/datasets/${id}/data`)).statusCode).toBe(404);
    expect((await ctx.s.app.inject({ method: 'PUT', url: `/sdk/v1/datasets/${id}/data`, payload: 'a,b\n9,9\n', headers: { ...headers, 'content-type': 'text/csv' } })).statusCode).toBe(404);
    expect((await ctx.s.app.inject({ method: 'DELETE', url: `/sdk/v1/datasets/${id}`, headers })).statusCode).toBe(404);
    const map = await ctx.s.app.inject({ method: 'POST', url: '/sdk/v1/maps', payload: { name: 'Theirs', datasets: [id] }, headers });
    expect(map.statusCode).toBe(404);
    expect((await sdkGet(theirs, '/sdk/v1/datasets')).json().items.map((d: { id: string }) => d.id)).not.toContain(id);
    expect((await sdkGet(ownerToken, `/sdk/v1/datasets/${id}/data`)).body).toBe('a,b\n1,2\n');
  });

  it('answers bad input with 422 and changes nothing', async () => {
    const token = await accessOf((await sdkKey()).key);
    const headers = { authorization: `Bearer ${token}` };
    const before = (await sdkGet(token, '/sdk/v1/maps')).json().items.length;
    const res = await ctx.s.app.inject({ method: 'POST', url: '/sdk/v1/maps', payload: { name: '', latestState: { data: 'not an object' } }, headers });
    expect(res.statusCode).toBe(422);
    expect((await sdkGet(token, '/sdk/v1/maps')).json().items.length).toBe(before);
    const refused = await ctx.s.app.inject({ method: 'POST', url: '/sdk/v1/datasets/data?name=Broken', payload: Buffer.from([0x1f, 0x8b, 0x00]), headers: { ...headers, 'content-type': 'text/csv', 'content-encoding': 'gzip' } });
    expect(refused.statusCode).toBe(422);
    expect((await sdkGet(token, '/sdk/v1/datasets')).json().items.map((d: { name: string }) => d.name)).not.toContain('Broken');
  });

  it("reads generate_hextile's config as the studio's build: SDK interval names, targetResOffset, no output columns counting rows; a step it has not is a 422", async () => {
    const token = await accessOf((await sdkKey()).key);
    const headers = { authorization: `Bearer ${token}` };
    const csv = 'lat,lng,ts\n37.79,-122.39,2024-01-05 13:10:00\n37.80,-122.40,2024-01-05 14:20:00\n';
    const source = (await ctx.s.app.inject({ method: 'POST', url: '/sdk/v1/datasets/data?name=Pings', payload: csv, headers: { ...headers, 'content-type': 'text/csv' } })).json().id;
    const config = { source, sourceLatColumn: 'lat', sourceLngColumn: 'lng', sourceTimeColumn: 'ts', finestResolution: 9, targetResOffset: 3 };
    const before = (await sdkGet(token, '/sdk/v1/datasets')).json().items.length;
    const second = await ctx.s.app.inject({ method: 'POST', url: '/sdk/v1/datasets/hextile', payload: { ...config, timeIntervals: ['HOUR', 'SECOND'] }, headers });
    expect([second.statusCode, second.json().message]).toEqual([422, 'Invalid request body: timeIntervals.1: SECOND is not a time step tiles are sliced by (YEAR, MONTH, DAY, HOUR or MINUTE)']);
    expect((await sdkGet(token, '/sdk/v1/datasets')).json().items.length).toBe(before);

    const res = await ctx.s.app.inject({ method: 'POST', url: '/sdk/v1/datasets/hextile', payload: { ...config, timeIntervals: ['HOUR', 'DAY'] }, headers });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ name: 'Pings (hex tiles)', type: 'hex-tile', isValid: false, metadata: { dataStatus: 'pending' } });
    // /v1 is read with a session: an SDK access token reaches the /sdk routes only.
    const made = (await as('owner', 'GET', `/v1/datasets/${res.json().id}`)).json().item;
    expect(made.metadata.hexTile).toMatchObject({ timeIntervals: ['H', 'D'], resolutionOffset: 3, finestResolution: 9, outputColumns: [{ targetColumn: 'count', aggMethod: 'count' }] });
  });
});
