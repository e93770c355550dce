import { VectorTile } from '@mapbox/vector-tile';
import Pbf from 'pbf';
import vtpbf from 'vt-pbf';
import { describe, expect, it } from 'vitest';
import { encodePoints, encodePointsWithin, type PointFeature } from '../src/vector-tiles/point-mvt';

const KEYS = ['name', 'score', 'open', 'code'];
/** Rows as the tiler streams them: tile x, tile y, fid, x0, y0, then the properties (offset 5). */
const row = (...values: unknown[]) => [0, 0, 0, 0, 0, ...values];
const FEATURES: PointFeature[] = [
  { id: 7, x: 100, y: 4000, row: row('Ferry Building', 10, true, '1') },
  { id: 3, x: -64, y: 4159, row: row('Coit Tower', null, false, 1) }, // in the buffer, past the tile's edges
  { id: 12, x: 2048, y: 0, row: row('Painted Ladies', -3, undefined, 2.5) },
  { id: 4_000_000_000, x: 0, y: 2048, row: row('Ferry Building', 0.25, true, 'x') }, // a value met again
];

/** Each feature of the tile's one layer: id, tile coordinates and properties as a renderer decodes them. */
function decoded(bytes: Uint8Array, layer = 'points') {
  const l = new VectorTile(new Pbf(bytes)).layers[layer]!;
  expect([l.version, l.extent]).toEqual([2, 4096]);
  return Array.from({ length: l.length }, (_, i) => {
    const f = l.feature(i);
    return { id: f.id, type: f.type, at: f.loadGeometry().map((ring) => ring.map((p) => [p.x, p.y])), properties: f.properties };
  });
}

describe('point MVT encoding', () => {
  it('decodes to what vt-pbf writes for the same points: ids, positions, typed values and left-out nulls', () => {
    const ours = decoded(encodePoints('points', KEYS, 5, FEATURES)!);
    const tile = {
      features: FEATURES.map((f) => ({
        id: f.id,
        type: 1,
        geometry: [[f.x, f.y]],
        tags: Object.fromEntries(KEYS.map((k, i) => [k, f.row[5 + i]]).filter(([, v]) => v !== null && v !== undefined)),
      })),
    };
    const theirs = decoded(vtpbf.fromGeojsonVt({ points: tile as never }, { version: 2 }));
    expect(ours).toEqual(theirs);
    expect(ours[1]).toEqual({ id: 3, type: 1, at: [[[-64, 4159]]], properties: { name: 'Coit Tower', open: false, code: 1 } });
    // '1' and 1 stay two values of their own types.
    expect([typeof ours[0]!.properties.code, typeof ours[1]!.properties.code]).toEqual(['string', 'number']);
  });

  it.each([
    ['no features', [], null],
    ['the first two of four', FEATURES.slice(0, 2), 2],
  ])('encodes %s', (_label, features, length) => {
    const bytes = encodePoints('points', KEYS, 5, features as PointFeature[]);
    expect(bytes === null ? null : decoded(bytes).length).toBe(length);
  });

  it('keeps a tile within its byte budget with the lowest ids, and says it trimmed', () => {
    const many: PointFeature[] = Array.from({ length: 400 }, (_, i) => ({ id: 400 - i, x: i, y: i, row: row(`place number ${400 - i}`, i, true, null) }));
    const whole = encodePointsWithin('points', KEYS, 5, many);
    expect(whole.trimmed).toBe(false);
    const budget = Math.floor(whole.bytes!.length / 3);
    const within = encodePointsWithin('points', KEYS, 5, many, budget);
    expect(within.trimmed).toBe(true);
    expect(within.bytes!.length).toBeLessThanOrEqual(budget);
    const ids = decoded(within.bytes!).map((f) => f.id);
    expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => i + 1));
    // As many as fit: one more would not.
    const oneMore = encodePoints('points', KEYS, 5, [...many].sort((a, b) => a.id - b.id), ids.length + 1)!;
    expect(oneMore.length).toBeGreaterThan(budget);
  });
});
