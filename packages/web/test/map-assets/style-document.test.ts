import { describe, expect, it } from 'vitest';
import { parseStyleFile, type MapLibreStyle } from '@studio/schema';
import { summarizeStyle } from '../../src/map-assets/style-document';

const ORIGIN = 'http://127.0.0.1:8080';
const style = (extra: Partial<MapLibreStyle>): MapLibreStyle => ({ version: 8, sources: {}, layers: [{ id: 'bg', type: 'background' }], ...extra });

describe('a style document, summed up for the editor', () => {
  it.each([
    ['a background only', style({}), []],
    ['the studio’s own tiles (relative and absolute)', style({ sources: { a: { type: 'vector', tiles: ['/v1/basemaps/tiles/{z}/{x}/{y}.pbf'] }, b: { type: 'vector', tiles: [`${ORIGIN}/t/{z}/{x}/{y}.pbf`] } } }), []],
    ['tiles, glyphs and a sprite elsewhere', style({ sources: { a: { type: 'vector', url: 'https://tiles.example.com/v3.json' } }, glyphs: 'https://fonts.example.org/{fontstack}/{range}.pbf', sprite: 'https://tiles.example.com/sprite' }), ['fonts.example.org', 'tiles.example.com']],
    ['a mapbox:// source', style({ sources: { a: { type: 'vector', url: 'mapbox://mapbox.mapbox-streets-v8' } } }), ['api.mapbox.com']],
  ])('lists the hosts it loads from outside the studio: %s', (_label, s, hosts) => {
    expect(summarizeStyle(s, ORIGIN).outsideHosts).toEqual(hosts);
  });

  it('counts layers by type and notices labels with no glyph server', () => {
    const s = style({ layers: [{ id: 'bg', type: 'background' }, { id: 'roads', type: 'line' }, { id: 'names', type: 'symbol', layout: { 'text-field': ['get', 'name'] } }] });
    expect(summarizeStyle(s, ORIGIN)).toMatchObject({ layers: 3, layerTypes: { background: 1, line: 1, symbol: 1 }, textWithoutGlyphs: true });
    expect(summarizeStyle({ ...s, glyphs: '/fonts/{fontstack}/{range}.pbf' }, ORIGIN).textWithoutGlyphs).toBe(false);
  });
});

describe('the style file check the editor and the server share', () => {
  it.each([
    ['{"version": 8', 'the file is not JSON'],
    ['{"version": 8, "sources": {}}', 'layers'],
    ['{"version": 8, "sources": {"a": {}}, "layers": []}', 'sources.a.type'],
  ])('refuses %s, saying where', (text, where) => {
    const r = parseStyleFile(text);
    expect('error' in r && r.error).toContain(where);
  });

  it('accepts a style and keeps what it does not check', () => {
    const r = parseStyleFile(JSON.stringify(style({ name: 'Mine', layers: [{ id: 'bg', type: 'background', paint: { 'background-color': '#f0f' } }] })));
    expect('style' in r && r.style).toMatchObject({ name: 'Mine', layers: [{ paint: { 'background-color': '#f0f' } }] });
  });
});
