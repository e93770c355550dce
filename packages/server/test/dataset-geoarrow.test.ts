import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { tableFromIPC, type Vector } from 'apache-arrow';
import { describe, expect, it, vi } from 'vitest';
import { geoArrowCopyKey, parseGeometry } from '@studio/engine';
import { STORES, useStudio } from './harness';

/**
 * GET /v1/datasets/{id}/data for the map builder (#46): with `geoarrow=1` on the Arrow media type, a polygon geometry
 * column leaves as `geoarrow.multipolygon` holding the same shapes as the text; without it (the SDK, downloads) the
 * text as before; a column that is not all polygons keeps its text. The answer is kept as the data's GeoArrow copy.
 */
const ARROW = 'application/vnd.apache.arrow.stream';
const GEOARROW = `${ARROW}; geoarrow=1`;

const feature = (name: string, geometry: unknown) => ({ type: 'Feature', properties: { name }, geometry });
const POLYGONS = {
  type: 'FeatureCollection',
  features: [
    feature('square', { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]] }),
    feature('with hole', { type: 'Polygon', coordinates: [[[10, 10], [14, 10], [14, 14], [10, 14], [10, 10]], [[11, 11], [11, 12], [12, 12], [12, 11], [11, 11]]] }),
    feature('two parts', { type: 'MultiPolygon', coordinates: [[[[20, 20], [21, 20], [21, 21], [20, 20]]], [[[30, 30], [31, 30], [31, 31], [30, 30]]]] }),
    feature('nothing', null),
    // Crosses the antimeridian: ingestion cuts it in two parts at ±180.
    feature('date line', { type: 'Polygon', coordinates: [[[179, -1], [-179, -1], [-179, 1], [179, 1], [179, -1]]] }),
  ],
};
const MIXED = { type: 'FeatureCollection', features: [feature('a', { type: 'Point', coordinates: [1, 2] }), feature('b', { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 0]]] })] };

type Multi = number[][][][];
/** A geoarrow.multipolygon cell as nested arrays. */
const cell = (v: Vector | null): Multi | null => (v == null ? null : [...v].map((p: Vector) => [...p].map((r: Vector) => [...r].map((xy: Vector) => [...xy] as number[]))));
/** The geometry text as the same nested arrays (a Polygon is a MultiPolygon of one part). */
function multiOf(text: string | null): Multi | null {
  const g = text == null ? null : parseGeometry(text);
  if (!g) return null;
  if (g.type === 'Polygon') return [g.coordinates as number[][][]];
  if (g.type === 'MultiPolygon') return g.coordinates as Multi;
  throw new Error(`not polygonal: ${g.type}`);
}

describe.each(STORES)('dataset data as GeoArrow on %s', (kind) => {
  const { ctx, as, rowOf } = useStudio(kind);

  async function upload(collection: unknown) {
    const res = await as('owner', 'POST', '/v1/datasets/data?name=Shapes', JSON.stringify(collection), { 'content-type': 'application/geo+json' });
    expect(res.statusCode).toBe(201);
    const item = res.json().item as { id: string; metadata: { detected: { geometry?: string } } };
    expect(item.metadata.detected.geometry).toBeTruthy();
    return { id: item.id, geometry: item.metadata.detected.geometry! };
  }
  const bytes = async (id: string, accept: string) => {
    const res = await as('owner', 'GET', `/v1/datasets/${id}/data`, undefined, { accept });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe(ARROW);
    return res.rawPayload;
  };
  const read = async (id: string, accept: string) => tableFromIPC(await bytes(id, accept));
  const store = () => ctx.s.services.engine.store;
  const copyOf = async (id: string) => geoArrowCopyKey(((await rowOf(id)).attrs as { storageKey: string }).storageKey);

  it('sends polygons as geoarrow.multipolygon with the shapes of the text; other readers keep the text', async () => {
    const { id, geometry } = await upload(POLYGONS);
    const text = await read(id, ARROW);
    expect(text.schema.fields.find((f) => f.name === geometry)!.metadata.get('ARROW:extension:name')).toBeUndefined();
    const geo = await read(id, GEOARROW);
    const field = geo.schema.fields.find((f) => f.name === geometry)!;
    expect(field.metadata.get('ARROW:extension:name')).toBe('geoarrow.multipolygon');
    expect(geo.numRows).toBe(text.numRows);
    const names = geo.getChild('name')!.toArray() as string[];
    const got = Object.fromEntries(names.map((n, i) => [n, cell(geo.getChild(geometry)!.get(i))]));
    const want = Object.fromEntries((text.getChild('name')!.toArray() as string[]).map((n, i) => [n, multiOf(text.getChild(geometry)!.get(i))]));
    expect(got).toEqual(want);
    expect(got['nothing']).toBeNull();
    expect(got['with hole']![0]).toHaveLength(2);
    expect(got['two parts']).toHaveLength(2);
    expect(got['date line']).toHaveLength(2);
    // Every other column is as the text answer has it.
    expect(geo.schema.fields.map((f) => f.name)).toEqual(text.schema.fields.map((f) => f.name));
  });

  it('keeps the text of a column that is not all polygons', async () => {
    const { id, geometry } = await upload(MIXED);
    const geo = await read(id, GEOARROW);
    expect(geo.schema.fields.find((f) => f.name === geometry)!.metadata.get('ARROW:extension:name')).toBeUndefined();
    expect(typeof geo.getChild(geometry)!.get(0)).toBe('string');
  });

  it('keeps the answer as a copy beside the data: built once for concurrent first reads, then streamed from the copy', async () => {
    const { id } = await upload(POLYGONS);
    const copy = await copyOf(id);
    expect(await store().exists(copy)).toBe(false);
    const builds = vi.spyOn(ctx.s.services.engine, 'datasetArrowStream');
    try {
      const [a, b] = await Promise.all([bytes(id, GEOARROW), bytes(id, GEOARROW)]);
      expect(builds).toHaveBeenCalledTimes(1);
      expect(Buffer.compare(a, b)).toBe(0);
      expect(Buffer.compare(await fs.readFile(await store().localPath(copy)), a)).toBe(0);
      // Another answer put in the copy's place: a read that rebuilt would not send it.
      const other = path.join(ctx.s.services.engine.tmpDir, `other-${randomUUID()}`);
      const text = await bytes(id, ARROW);
      builds.mockClear();
      await fs.writeFile(other, text);
      await store().put(copy, other);
      expect(Buffer.compare(await bytes(id, GEOARROW), text)).toBe(0);
      expect(builds).not.toHaveBeenCalled();
    } finally {
      builds.mockRestore();
    }
  });

  it('answers replaced data, not the copy of the data it replaced; a deleted dataset takes its copy', async () => {
    const { id, geometry } = await upload(POLYGONS);
    await bytes(id, GEOARROW);
    const before = await copyOf(id);
    expect(await store().exists(before)).toBe(true);
    const put = await as('owner', 'PUT', `/v1/datasets/${id}/data`, JSON.stringify(MIXED), { 'content-type': 'application/geo+json' });
    expect(put.statusCode).toBe(200);
    const after = await read(id, GEOARROW);
    expect(after.getChild('name')!.toArray()).toEqual(['a', 'b']);
    expect(typeof after.getChild(geometry)!.get(0)).toBe('string');
    expect(await store().exists(before)).toBe(false);
    const current = await copyOf(id);
    expect(await store().exists(current)).toBe(true);
    expect((await as('owner', 'DELETE', `/v1/datasets/${id}`)).statusCode).toBe(204);
    expect(await store().exists(current)).toBe(false);
  });
});
