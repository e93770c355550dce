import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES, seedCast, startStudio, type TestStudio } from './harness';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5d1a1e10000000049454e44ae426082', 'hex');

describe.each(STORES)('projects on %s', (kind) => {
  let s: TestStudio;
  let cast: Awaited<ReturnType<typeof seedCast>>;
  const as = (who: keyof typeof cast.tokens, method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    s.app.inject({ method: method as 'GET', url, payload: payload as object | Buffer, headers: { authorization: cast.tokens[who], ...headers } });
  const mkProject = async (name = 'Atlas') => (await as('owner', 'POST', '/v1/projects', { name })).json().item;
  const entriesOf = async (projectId: string) => (await s.services.db.selectFrom('resources').select('id').where('id', '=', projectId).execute()).length;

  beforeAll(async () => {
    s = await startStudio(kind);
    cast = await seedCast(s);
  });
  afterAll(async () => s?.dispose());

  it('creates, reads, saves, lists and deletes a project', async () => {
    const p = await mkProject();
    expect(p).toMatchObject({ type: 'project', name: 'Atlas', folders: [], access: 'owner' });
    expect((await as('owner', 'PUT', `/v1/projects/${p.id}`, { name: 'Atlas 2' })).json().item.name).toBe('Atlas 2');
    expect((await as('owner', 'GET', '/v1/projects')).json().items.map((i: { id: string }) => i.id)).toContain(p.id);
    expect((await as('colleague', 'GET', '/v1/projects/for-organization')).json().items.map((i: { id: string }) => i.id)).toContain(p.id);
    expect((await as('owner', 'DELETE', `/v1/projects/${p.id}`)).statusCode).toBe(204);
    expect(await entriesOf(p.id)).toBe(0);
  });

  it('keeps folders and resources in folders; deleting a folder moves its resources to the root', async () => {
    const p = await mkProject();
    const map = (await as('owner', 'POST', '/v1/maps', { name: 'M' })).json().item;
    const style = (await as('owner', 'POST', '/v1/map-assets', { assetType: 'map-style', name: 'S' })).json().item;
    const folder = (await as('owner', 'POST', `/v1/projects/${p.id}/folders`, { name: 'Drafts' })).json().item;
    const sub = (await as('owner', 'POST', `/v1/projects/${p.id}/folders`, { name: 'Old', parentId: folder.id })).json().item;
    expect((await as('owner', 'GET', `/v1/projects/${p.id}`)).json().item.folders.map((f: { name: string }) => f.name)).toEqual(['Drafts', 'Old']);
    const inFolder = await as('owner', 'POST', `/v1/projects/${p.id}/resources`, { resource: { type: 'map', id: map.id }, folderId: folder.id });
    expect(inFolder.json().item).toMatchObject({ folderId: folder.id, resource: { type: 'map', id: map.id, name: 'M' } });
    const atRoot = (await as('owner', 'POST', `/v1/projects/${p.id}/resources`, { resource: { type: 'map-style', id: style.id } })).json().item;
    const ids = async (path: string) => (await as('owner', 'GET', `/v1/projects/${p.id}${path}`)).json().items.map((e: { resource: { id: string } }) => e.resource.id);
    expect(await ids('/resources')).toEqual([map.id, style.id]);
    expect(await ids('/folders/root/resources')).toEqual([style.id]);
    expect(await ids(`/folders/${folder.id}/resources`)).toEqual([map.id]);
    const renamed = await as('owner', 'PUT', `/v1/projects/${p.id}/folders/${folder.id}`, { name: 'Final' });
    expect(renamed.json().item.name).toBe('Final');
    const loop = await as('owner', 'PUT', `/v1/projects/${p.id}/folders/${folder.id}`, { parentId: sub.id });
    expect(loop.statusCode).toBe(409);
    expect((await as('owner', 'PUT', `/v1/projects/${p.id}/resources/${atRoot.id}`, { folderId: sub.id })).json().item.folderId).toBe(sub.id);
    expect((await as('owner', 'DELETE', `/v1/projects/${p.id}/folders/${folder.id}`)).statusCode).toBe(204);
    expect(await ids('/folders/root/resources')).toEqual([map.id, style.id]);
    expect((await as('owner', 'DELETE', `/v1/projects/${p.id}/resources/${atRoot.id}`)).statusCode).toBe(204);
    expect(await ids('/resources')).toEqual([map.id]);
    expect((await as('owner', 'GET', `/v1/map-assets/${style.id}`)).statusCode).toBe(200);
    const again = await as('owner', 'POST', `/v1/projects/${p.id}/resources`, { resource: { type: 'map', id: map.id } });
    expect(again.statusCode).toBe(409);
    expect((await as('owner', 'GET', `/v1/projects/${p.id}/folders/${randomUUID()}/resources`)).json().message).toBe('Folder not found');
  });

  it.each([
    ['an empty body', () => ({})],
    ['an unknown kind', () => ({ resource: { type: 'video', id: randomUUID() } })],
    ['a bad id', () => ({ resource: { type: 'map', id: 'x' } })],
    ['a missing resource', () => ({ resource: { type: 'dataset', id: randomUUID() } })],
  ])("refuses %s with 'Could not save project resource' (422) and adds nothing", async (_label, body) => {
    const p = await mkProject();
    const res = await as('owner', 'POST', `/v1/projects/${p.id}/resources`, body());
    expect([res.statusCode, res.json().message]).toEqual([422, 'Could not save project resource']);
    expect((await as('owner', 'GET', `/v1/projects/${p.id}/resources`)).json().items).toEqual([]);
  });

  it("refuses a resource the caller cannot read, and a palette as a map style, with 'Could not save project resource'", async () => {
    const p = await mkProject();
    const theirs = (await as('outsider', 'POST', '/v1/maps', { name: 'Theirs' })).json().item;
    const palette = (await as('owner', 'POST', '/v1/map-assets', { assetType: 'color-palette', name: 'P', palette: { type: 'qualitative', colors: ['#112233', '#445566'] } })).json().item;
    const style = (await as('owner', 'POST', '/v1/map-assets', { assetType: 'map-style', name: 'S' })).json().item;
    for (const [resource, reason] of [
      [{ type: 'map', id: theirs.id }, 'Map not found'],
      [{ type: 'map-style', id: palette.id }, 'Asset is not a Map Style'],
      [{ type: 'color-palette', id: style.id }, 'Asset is not a Color Palette'],
    ] as const) {
      const res = await as('owner', 'POST', `/v1/projects/${p.id}/resources`, { resource });
      expect([res.statusCode, res.json().message, res.json().details]).toEqual([422, 'Could not save project resource', reason]);
    }
    expect((await as('owner', 'GET', `/v1/projects/${p.id}/resources`)).json().items).toEqual([]);
  });

  it('holds workbooks and color palettes beside the documents\' kinds (docs/decisions.md "Projects")', async () => {
    const p = await mkProject();
    const workbook = (await as('owner', 'POST', '/v1/workbooks', { name: 'W' })).json().item;
    const palette = (await as('owner', 'POST', '/v1/map-assets', { assetType: 'color-palette', name: 'P', palette: { type: 'qualitative', colors: ['#112233', '#445566'] } })).json().item;
    for (const resource of [{ type: 'workbook', id: workbook.id }, { type: 'color-palette', id: palette.id }]) {
      expect((await as('owner', 'POST', `/v1/projects/${p.id}/resources`, { resource })).statusCode).toBe(200);
    }
    const listed = (await as('owner', 'GET', `/v1/projects/${p.id}/resources`)).json().items.map((e: { resource: { type: string; name: string } }) => [e.resource.type, e.resource.name]);
    expect(listed).toEqual([['workbook', 'W'], ['color-palette', 'P']]);
  });

  it('takes a thumbnail by PUT or POST and serves it', async () => {
    const p = await mkProject();
    for (const method of ['PUT', 'POST']) {
      const res = await as('owner', method, `/v1/projects/${p.id}/thumbnail`, PNG, { 'content-type': 'image/png' });
      expect(res.statusCode).toBe(200);
    }
    const policy = await as('owner', 'POST', `/v1/projects/${p.id}/thumbnail`, { contentType: 'image/png' });
    expect(policy.json().item.fields.signature).toEqual(expect.any(String));
    const got = (await as('owner', 'GET', `/v1/projects/${p.id}`)).json().item;
    const thumb = await as('owner', 'GET', got.thumbnailUrl);
    expect([thumb.statusCode, thumb.rawPayload.equals(PNG)]).toEqual([200, true]);
  });
});
