import { describe, expect, it } from 'vitest';
import { findPoints } from '../src/connectors/points';

describe('findPoints: where a query result sits on a map', () => {
  it.each([
    ['latitude/longitude columns', [{ name: 'a', latitude: 37.8, longitude: -122.4 }], [[-122.4, 37.8]], 'latitude, longitude'],
    ['lat/lng as text (PostgreSQL numerics)', [{ lat: '37.8', lng: '-122.4' }], [[-122.4, 37.8]], 'lat, lng'],
    ['a WKT point column', [{ geom: 'POINT (-122.4 37.8)' }, { geom: 'POINT(-122.5 37.7)' }], [[-122.4, 37.8], [-122.5, 37.7]], 'geom'],
    ['a GeoJSON point column (text)', [{ g: '{"type":"Point","coordinates":[-122.4,37.8]}' }], [[-122.4, 37.8]], 'g'],
    ['a GeoJSON point column (object)', [{ g: { type: 'Point', coordinates: [-122.4, 37.8] } }], [[-122.4, 37.8]], 'g'],
  ])('%s', (_name, rows, points, from) => {
    expect(findPoints(rows as Record<string, unknown>[])).toEqual({ points, from });
  });

  it.each([
    ['no position column', [{ name: 'a', category: 'b' }]],
    ['coordinates out of range', [{ lat: 137.8, lng: -122.4 }]],
    ['mostly empty positions', [{ lat: null, lng: null }, { lat: null, lng: null }, { lat: 1, lng: 2 }]],
    ['no rows', []],
  ])('none for %s', (_name, rows) => {
    expect(findPoints(rows as Record<string, unknown>[])).toBeNull();
  });
});
