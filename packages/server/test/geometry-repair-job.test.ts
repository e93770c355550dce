import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseGeometry, quoteLiteral } from '@studio/engine';
import { datasetAttrs } from '../src/services/datasets';
import { startGeometryRepair } from '../src/services/geometry-repair-job';
import { STORES, jobEnded, useStudio } from './harness';

/**
 * Geometry cut at the antimeridian at ingest, counted on the dataset; and datasets made before (their data as it
 * was written then, no marker) repaired once by the start-up job, which a second start does not queue again.
 */
const FIJI = { type: 'Polygon', coordinates: [[[179, -17], [-179, -17], [-179, -16], [179, -16], [179, -17]]] };
const BOWTIE = { type: 'Polygon', coordinates: [[[0, 0], [2, 2], [2, 0], [0, 2], [0, 0]]] };
const fc = (geoms: object[]) => JSON.stringify({ type: 'FeatureCollection', features: geoms.map((geometry, i) => ({ type: 'Feature', properties: { n: i }, geometry })) });

describe.each(STORES)('geometry repair on %s', (kind) => {
  const { ctx, as, rowOf } = useStudio(kind);
  const upload = async (name: string, body: string) => {
    const res = await ctx.s.app.inject({ method: 'POST', url: `/v1/datasets/data?name=${name}`, payload: body, headers: { authorization: ctx.cast.tokens.owner, 'content-type': 'application/geo+json' } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().item as { id: string; metadata: Record<string, unknown> };
  };
  const geometries = async (id: string) => {
    const rows = (await ctx.s.services.engine.preview(datasetAttrs(await rowOf(id)).storageKey!)) as Record<string, unknown>[];
    return rows.map((r) => parseGeometry(String(r._geojson))!.type);
  };

  it('cuts at ingest and says so on the dataset', async () => {
    const ds = await upload('cut', fc([FIJI, BOWTIE]));
    expect(ds.metadata.geometryRepairs).toEqual({ repaired: 1, repairs: { cut: 1 }, invalid: { 'self-intersection': 1 } });
    expect(await geometries(ds.id)).toEqual(['MultiPolygon', 'Polygon']);
  });

  it('repairs a dataset made before, once', async () => {
    const ds = await upload('before', fc([FIJI]));
    // As a dataset made before this release: its data uncut, no marker.
    const key = datasetAttrs(await rowOf(ds.id)).storageKey!;
    const old = path.join(ctx.s.services.engine.tmpDir, `before-${ds.id}.parquet`);
    const file = await ctx.s.services.engine.store.localPath(key);
    await ctx.s.services.engine.query(`COPY (SELECT * REPLACE (${quoteLiteral(JSON.stringify(FIJI))} AS _geojson) FROM read_parquet(${quoteLiteral(file)})) TO ${quoteLiteral(old)} (FORMAT parquet)`);
    await ctx.s.services.engine.store.put(key, old);
    await ctx.s.services.datasets.patchMetadata(ds.id, () => ({ geometryRepairs: undefined }));
    expect(await geometries(ds.id)).toEqual(['Polygon']);

    const jobId = await startGeometryRepair(ctx.s.services);
    expect(jobId).not.toBeNull();
    const ended = await jobEnded((url) => as('owner', 'GET', url), jobId!, 120_000);
    expect([ended.status, ended.percent]).toEqual(['succeeded', 100]);
    const after = datasetAttrs(await rowOf(ds.id));
    expect(after.storageKey).not.toBe(key);
    expect(after.metadata.geometryRepairs).toEqual({ repaired: 1, repairs: { cut: 1 }, invalid: {} });
    expect(await geometries(ds.id)).toEqual(['MultiPolygon']);
    // The marker holds: nothing is queued at the next start.
    expect(await startGeometryRepair(ctx.s.services)).toBeNull();
  });
});
