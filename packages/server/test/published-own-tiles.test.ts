import { describe, expect, it } from 'vitest';
import { STORES, jobEnded, useStudio } from './harness';

/**
 * A published map drawn from a table dataset's own tiles (#50): its tile links are handed to anonymous viewers when
 * the map asks for them (own=1, its saved layers drew the dataset from tiles), only while they show the dataset's
 * data; without own=1 the answer is as before (null: read the rows).
 */
const CSV = ['name,lat,lng', ...Array.from({ length: 200 }, (_, i) => `p${i},${(37.7 + (i % 20) * 0.005).toFixed(4)},${(-122.5 + Math.floor(i / 20) * 0.005).toFixed(4)}`)].join('\n') + '\n';

describe.each(STORES)("a published map's table dataset drawn from its own tiles (%s)", (store) => {
  const { ctx, as } = useStudio(store);

  it('hands out links to its own tiles with own=1 while they show its data, and null otherwise', async () => {
    const upload = async (name: string) => (await as('owner', 'POST', `/v1/datasets/data?name=${name}`, CSV, { 'content-type': 'text/csv' })).json().item.id as string;
    const [tiled, plain] = [await upload('tiled'), await upload('plain')];
    const { job } = (await as('owner', 'POST', `/v1/datasets/${tiled}/tiles`, { maxZoom: 8 })).json();
    expect((await jobEnded((url) => as('owner', 'GET', url), job.id)).status).toBe('succeeded');
    const map = (await as('owner', 'POST', '/v1/maps', { name: 'Own tiles', latestState: { kepler: {} }, datasets: [tiled, plain] })).json().item;
    expect((await as('owner', 'POST', `/v1/maps/${map.id}/publish/map`, {})).statusCode).toBeLessThan(300);
    const link = (datasetId: string, own?: string) =>
      ctx.s.app.inject({ method: 'GET', url: `/v1/maps/${map.id}/published-map/datasets/${datasetId}/tiles/link${own ? `?own=${own}` : ''}` });

    const res = await link(tiled, '1');
    expect(res.statusCode, res.body).toBe(200);
    const tile = await ctx.s.app.inject({ method: 'GET', url: res.json().item.tileUrl.replace(/^https?:\/\/[^/]+/, '').replace('{z}/{x}/{y}', '0/0/0') });
    expect(tile.statusCode).toBe(200);
    expect((await link(tiled)).json()).toEqual({ item: null });
    expect((await link(tiled, '0')).json()).toEqual({ item: null });
    expect((await link(plain, '1')).json()).toEqual({ item: null });
    // Its data replaced, the tiles show rows it no longer has: read the rows instead.
    expect((await as('owner', 'PUT', `/v1/datasets/${tiled}/data`, CSV, { 'content-type': 'text/csv' })).statusCode).toBe(200);
    expect((await link(tiled, '1')).json()).toEqual({ item: null });
    expect((await link(tiled, 'yes')).statusCode).toBe(422);
  }, 120_000);
});
