import { describe, expect, it } from 'vitest';
import { reprojectWkt, toLngLatOf } from '../src/formats/reproject';

/** The Ferry Building, and where it is in UTM zone 10N and in Web Mercator (metres). */
const FERRY = { lng: -122.393494, lat: 37.795528 };

describe('transforms to longitude/latitude', () => {
  it.each([
    ['EPSG:32610 (an identifier)', 'EPSG:32610'],
    ['EPSG:3857 (an identifier)', 'EPSG:3857'],
    ['a PROJJSON cut to its id', JSON.stringify({ type: 'ProjectedCRS', name: 'WGS 84 / UTM zone 10N', id: { authority: 'EPSG', code: 32610 } })],
    ['a southern UTM zone', 'EPSG:32733'],
  ])('are built for %s', (_label, crs) => {
    expect(toLngLatOf(crs)).not.toBeNull();
  });

  it.each([
    ['a code without a definition here', 'EPSG:2154'],
    ['another authority', 'ESRI:102003'],
    ['text that is no CRS', 'not a crs'],
    ['broken PROJJSON', '{"type": '],
    ['PROJJSON naming nothing', '{"type": "ProjectedCRS", "name": "Somewhere"}'],
  ])('are not built for %s', (_label, crs) => {
    expect(toLngLatOf(crs)).toBeNull();
  });

  it('moves every coordinate of a WKT, keeping z and the text around them', () => {
    const toLngLat = toLngLatOf('EPSG:32610')!;
    const utm = '553170.5 4183163.25';
    const [lng, lat] = toLngLat(553170.5, 4183163.25);
    expect(Math.abs(lng - FERRY.lng)).toBeLessThan(0.01);
    expect(Math.abs(lat - FERRY.lat)).toBeLessThan(0.01);
    const out = reprojectWkt(`MULTIPOINT Z ((${utm} 12), (${utm} -3.5e1))`, toLngLat);
    expect(out).toMatch(/^MULTIPOINT Z \(\(-122\.\d+ 37\.\d+ 12\), \(-122\.\d+ 37\.\d+ -3\.5e1\)\)$/);
    expect(reprojectWkt('POINT EMPTY', toLngLat)).toBe('POINT EMPTY');
  });

  it('round-trips through Web Mercator to within 1e-9°', () => {
    const toLngLat = toLngLatOf('EPSG:3857')!;
    const x = (FERRY.lng * Math.PI * 6378137) / 180;
    const y = Math.log(Math.tan(Math.PI / 4 + (FERRY.lat * Math.PI) / 360)) * 6378137;
    const [lng, lat] = toLngLat(x, y);
    expect(Math.abs(lng - FERRY.lng)).toBeLessThan(1e-9);
    expect(Math.abs(lat - FERRY.lat)).toBeLessThan(1e-9);
  });
});
