import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { STORES, useStudio, type Who } from './harness';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5d1a1e10000000049454e44ae426082', 'hex');
const STYLE = { version: 8, sources: {}, layers: [{ id: 'bg', type: 'background' }] };
const PALETTE = { type: 'sequential', colors: ['#000000', '#ffffff'] };

describe.each(STORES)('map assets on %s', (kind) => {
  const studio = useStudio(kind);
  const { as, rowOf } = studio;
  const create = (body: unknown) => studio.create('/v1/map-assets', body);

  it.each([
    ['a map style', { assetType: 'map-style', name: 'Dark', externalUrl: 'https://tiles.example.com/style.json', style: STYLE }, { assetType: 'map-style', style: STYLE, palette: null, hasAccessToken: false }],
    ['a style named by type', { type: 'map-style', name: 'Light' }, { assetType: 'map-style', externalUrl: null }],
    ['a color palette', { assetType: 'color-palette', name: 'Greys', palette: PALETTE }, { assetType: 'color-palette', palette: PALETTE, style: null }],
  ])('creates %s, reads it back and saves it', async (_label, body, expected) => {
    const item = await create(body);
    expect(item).toMatchObject({ type: 'map-asset', name: body.name, access: 'owner', ...expected });
    expect((await as('owner', 'GET', `/v1/map-assets/${item.id}`)).json().item).toMatchObject(expected);
    const saved = await as('owner', 'PUT', `/v1/map-assets/${item.id}`, { assetType: item.assetType, name: `${body.name} 2` });
    expect(saved.json().item).toMatchObject({ name: `${body.name} 2`, ...expected });
    expect((await as('owner', 'DELETE', `/v1/map-assets/${item.id}`)).statusCode).toBe(204);
    expect((await as('owner', 'GET', `/v1/map-assets/${item.id}`)).statusCode).toBe(404);
  });

  it('stores the access token encrypted and never answers it', async () => {
    const token = 'pk.secret-token-1234567890';
    const item = await create({ assetType: 'map-style', name: 'Tokened', accessToken: token });
    expect(item.hasAccessToken).toBe(true);
    for (const res of [await as('owner', 'GET', `/v1/map-assets/${item.id}`), await as('owner', 'GET', '/v1/map-assets')]) expect(res.body).not.toContain(token);
    const row = await rowOf(item.id);
    expect(JSON.stringify(row)).not.toContain(token);
    expect(studio.ctx.s.services.secrets.decrypt((row.attrs as { accessToken: string }).accessToken)).toBe(token);
    const cleared = await as('owner', 'PUT', `/v1/map-assets/${item.id}`, { assetType: 'map-style', accessToken: null });
    expect(cleared.json().item.hasAccessToken).toBe(false);
  });

  it('filters lists by type and silently skips assets whose attrs do not parse', async () => {
    const style = await create({ assetType: 'map-style', name: 'Listed style' });
    const palette = await create({ assetType: 'color-palette', name: 'Listed palette', palette: PALETTE });
    const broken = randomUUID();
    await studio.ctx.s.services.db
      .insertInto('resources')
      .values({ id: broken, type: 'map-asset', owner_id: studio.ctx.cast.users.owner.id, organization_id: studio.ctx.cast.org.id, name: 'Broken', attrs: JSON.stringify({ assetType: 'color-palette', palette: { colors: 'nope' } }) })
      .execute();
    const ids = async (url: string, who: Who = 'owner') => (await as(who, 'GET', url)).json().items.map((i: { id: string }) => i.id);
    expect(await ids('/v1/map-assets?type=map-style')).toContain(style.id);
    expect(await ids('/v1/map-assets?type=map-style')).not.toContain(palette.id);
    expect(await ids('/v1/map-assets?type=color-palette')).toContain(palette.id);
    for (const url of ['/v1/map-assets', '/v1/map-assets?type=color-palette']) expect(await ids(url)).not.toContain(broken);
    expect(await ids('/v1/map-assets/for-organization', 'colleague')).toEqual(expect.arrayContaining([style.id, palette.id]));
    expect(await ids('/v1/map-assets/for-organization', 'colleague')).not.toContain(broken);
    const one = await as('owner', 'GET', `/v1/map-assets/${broken}`);
    expect([one.statusCode, one.json().message]).toEqual([422, 'Could not parse map asset']);
    await as('owner', 'POST', `/v1/permissions`, { resourceType: 'map-asset', resourceId: palette.id, role: 'viewer', email: studio.ctx.cast.users.viewer.email });
    expect(await ids('/v1/map-assets/shared-with-user', 'viewer')).toContain(palette.id);
  });

  it.each([
    ['GET a palette as a style', 'color-palette', 'GET', '?type=map-style', undefined, 'Asset is not a Map Style'],
    ['GET a style as a palette', 'map-style', 'GET', '?type=color-palette', undefined, 'Asset is not a Color Palette'],
    ['PUT a style body on a palette', 'color-palette', 'PUT', '', { assetType: 'map-style', name: 'x' }, 'Asset is not a Map Style'],
    ['PUT a palette body on a style', 'map-style', 'PUT', '', { assetType: 'color-palette', palette: PALETTE }, 'Asset is not a Color Palette'],
    ['ask for a style file on a palette', 'color-palette', 'POST', '/files', { assetContentType: 'application/json' }, 'Asset is not a Map Style'],
  ])('refuses to %s (422) and changes nothing', async (_label, assetType, method, suffix, body, message) => {
    const item = await create(assetType === 'map-style' ? { assetType, name: 'Kind' } : { assetType, name: 'Kind', palette: PALETTE });
    const before = await rowOf(item.id);
    const url = suffix.startsWith('?') ? `/v1/map-assets/${item.id}${suffix}` : `/v1/map-assets/${item.id}${suffix}`;
    const res = await as('owner', method, url, body);
    expect([res.statusCode, res.json().message]).toEqual([422, message]);
    expect(await rowOf(item.id)).toEqual(before);
  });

  it.each([
    ['no name', { assetType: 'map-style' }],
    ['an ftp externalUrl', { assetType: 'map-style', name: 'x', externalUrl: 'ftp://example.com/style.json' }],
    ['one color', { assetType: 'color-palette', name: 'x', palette: { type: 'sequential', colors: ['#000000'] } }],
    ['21 colors', { assetType: 'color-palette', name: 'x', palette: { type: 'sequential', colors: Array(21).fill('#000000') } }],
    ['a bad color', { assetType: 'color-palette', name: 'x', palette: { type: 'diverging', colors: ['#000', '#ffffff'] } }],
    ['an unknown asset type', { assetType: '3d-model', name: 'x' }],
    ['a style that is not an object', { assetType: 'map-style', name: 'x', style: [1, 2] }],
  ])('refuses a body with %s (422) and creates nothing', async (_label, body) => {
    const before = (await as('owner', 'GET', '/v1/map-assets')).json().total;
    const res = await as('owner', 'POST', '/v1/map-assets', body);
    expect(res.statusCode).toBe(422);
    expect((await as('owner', 'GET', '/v1/map-assets')).json().total).toBe(before);
  });

  it('uploads a style file and a thumbnail through signed policies and serves them to readers', async () => {
    const item = await create({ assetType: 'map-style', name: 'Uploaded' });
    const upload = async (body: Record<string, string>, bytes: Buffer | string, contentType: string) => {
      const policy = (await as('owner', 'POST', `/v1/map-assets/${item.id}/files`, body)).json().item;
      const qs = new URLSearchParams(policy.fields).toString();
      return studio.ctx.s.app.inject({ method: 'POST', url: `${policy.url}?${qs}`, payload: bytes, headers: { 'content-type': contentType } });
    };
    expect((await upload({ assetContentType: 'application/json' }, JSON.stringify(STYLE), 'application/json')).statusCode).toBe(200);
    expect((await upload({ thumbnailContentType: 'image/png' }, PNG, 'image/png')).statusCode).toBe(200);
    const wrong = await upload({ thumbnailContentType: 'image/png' }, PNG, 'image/jpeg');
    expect([wrong.statusCode, wrong.json().message]).toEqual([422, 'Unsupported content type']);
    const got = (await as('owner', 'GET', `/v1/map-assets/${item.id}`)).json().item;
    expect(got).toMatchObject({ readPath: `/v1/map-assets/${item.id}/files/asset`, assetContentType: 'application/json', thumbnailContentType: 'image/png' });
    await as('owner', 'POST', `/v1/permissions`, { resourceType: 'map-asset', resourceId: item.id, role: 'limited-viewer', email: studio.ctx.cast.users.viewer.email });
    const file = await as('viewer', 'GET', got.readPath);
    expect([file.statusCode, file.headers['content-type'], file.json()]).toEqual([200, 'application/json', STYLE]);
    expect(got.thumbnailUrl).toMatch(new RegExp(`^/v1/map-assets/${item.id}/files/thumbnail\\?v=\\d+$`));
    const thumb = await as('viewer', 'GET', got.thumbnailUrl);
    expect([thumb.statusCode, thumb.rawPayload.equals(PNG)]).toEqual([200, true]);
    expect((await as('outsider', 'GET', got.readPath)).statusCode).toBe(404);
    expect((await as('owner', 'POST', `/v1/map-assets/${item.id}/files`, { assetContentType: 'image/png' })).statusCode).toBe(422);
  });

  it.each([
    ['text that is not JSON', '{"version": 8,', 'the file is not JSON'],
    ['a JSON array', '[1, 2]', 'document'],
    ['a style of another version', JSON.stringify({ ...STYLE, version: 7 }), 'version'],
    ['a style without layers', JSON.stringify({ version: 8, sources: {} }), 'layers'],
    ['a layer without a type', JSON.stringify({ ...STYLE, layers: [{ id: 'bg' }] }), 'layers.0.type'],
  ])('refuses an uploaded style file that is %s (422) and keeps the style it had', async (_label, bytes, where) => {
    const item = await create({ assetType: 'map-style', name: 'Checked upload' });
    const upload = async (text: string) => {
      const policy = (await as('owner', 'POST', `/v1/map-assets/${item.id}/files`, { assetContentType: 'application/json' })).json().item;
      return studio.ctx.s.app.inject({ method: 'POST', url: `${policy.url}?${new URLSearchParams(policy.fields)}`, payload: text, headers: { 'content-type': 'application/json' } });
    };
    expect((await upload(JSON.stringify(STYLE))).statusCode).toBe(200);
    const refused = await upload(bytes);
    expect(refused.statusCode).toBe(422);
    expect(refused.json().message).toContain('Style file must be a MapLibre style: a JSON object with version 8, sources and layers');
    expect(refused.json().message).toContain(where);
    expect((await as('owner', 'GET', `/v1/map-assets/${item.id}/files/asset`)).json()).toEqual(STYLE);
  });
});
