import { describe, expect, it } from 'vitest';
import type { Geometry } from 'geojson';
import { WkbError, geoJsonToWkb, wkbToGeoJson } from '../src/formats/wkb';
import { gpkgGeometry } from '../src/formats/geopackage';

/**
 * WKB as GeoPackage stores it (#48): every geometry type written and read back the same, big-endian and Z
 * coordinates read, and blobs that lie about their sizes refused before anything is allocated for them.
 */
const GEOMETRIES: Geometry[] = [
  { type: 'Point', coordinates: [-122.4, 37.8] },
  { type: 'LineString', coordinates: [[0, 0], [1, 1], [2, 0]] },
  { type: 'Polygon', coordinates: [[[0, 0], [4, 0], [4, 4], [0, 4], [0, 0]], [[1, 1], [2, 1], [2, 2], [1, 1]]] },
  { type: 'MultiPoint', coordinates: [[0, 0], [5, 5]] },
  { type: 'MultiLineString', coordinates: [[[0, 0], [1, 1]], [[2, 2], [3, 3]]] },
  { type: 'MultiPolygon', coordinates: [[[[0, 0], [1, 0], [1, 1], [0, 0]]], [[[5, 5], [6, 5], [6, 6], [5, 5]]]] },
  { type: 'GeometryCollection', geometries: [{ type: 'Point', coordinates: [1, 2] }, { type: 'LineString', coordinates: [[0, 0], [1, 1]] }] },
];

const view = (b: Uint8Array | number[]) => {
  const u = b instanceof Uint8Array ? b : new Uint8Array(b);
  return new DataView(u.buffer, u.byteOffset, u.byteLength);
};

describe('WKB', () => {
  it.each(GEOMETRIES.map((g) => [g.type, g] as const))('%s written and read back', (_type, g) => {
    expect(wkbToGeoJson(view(geoJsonToWkb(g)))).toEqual(g);
  });

  it('reads big-endian WKB and keeps Z (ISO code 1001)', () => {
    const b = new DataView(new ArrayBuffer(29));
    b.setUint8(0, 0);
    b.setUint32(1, 1001, false);
    [1.5, 2.5, 10].forEach((v, i) => b.setFloat64(5 + i * 8, v, false));
    expect(wkbToGeoJson(b)).toEqual({ type: 'Point', coordinates: [1.5, 2.5, 10] });
  });

  it.each([
    ['a line claiming 2^30 points', [1, 2, 0, 0, 0, 0, 0, 0, 0x40, ...new Array(16).fill(0)], /ends before its coordinates do/],
    ['a polygon claiming 2^32-1 rings', [1, 3, 0, 0, 0, 0xff, 0xff, 0xff, 0xff], /ends before its coordinates do/],
    ['a point cut short', [1, 1, 0, 0, 0, 0, 0], /ends before its coordinates do/],
    ['an unknown type', [1, 99, 0, 0, 0], /not one GeoJSON has/],
    ['a bad byte order', [7, 1, 0, 0, 0], /no valid byte order/],
    ['a multipolygon holding a point', [1, 6, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, ...new Array(16).fill(0)], /a MultiPolygon holds a Point/],
    ['trailing bytes', [...geoJsonToWkb({ type: 'Point', coordinates: [0, 0] }), 0], /bytes after its geometry/],
  ])('refuses %s', (_label, bytes, message) => {
    expect(() => wkbToGeoJson(view(bytes))).toThrow(WkbError);
    expect(() => wkbToGeoJson(view(bytes))).toThrow(message);
  });

  it('reads the GeoPackage header: its envelope skipped, the empty flag as no geometry, a bad envelope code refused', () => {
    const wkb = geoJsonToWkb({ type: 'Point', coordinates: [3, 4] });
    const withEnvelope = new Uint8Array([0x47, 0x50, 0, 0b0000_0011, 0xe6, 0x10, 0, 0, ...new Array(32).fill(0), ...wkb]);
    expect(gpkgGeometry(withEnvelope)).toEqual({ type: 'Point', coordinates: [3, 4] });
    expect(gpkgGeometry(new Uint8Array([0x47, 0x50, 0, 0b0001_0001, 0, 0, 0, 0, ...wkb]))).toBeNull();
    expect(() => gpkgGeometry(new Uint8Array([0x47, 0x50, 0, 0b0000_1101, 0, 0, 0, 0, ...wkb]))).toThrow(/invalid envelope code/);
    expect(() => gpkgGeometry(new Uint8Array([0x47, 0x50, 0, 0b0000_0101, 0, 0, 0, 0]))).toThrow(/ends inside its header/);
  });
});
