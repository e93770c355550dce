import { describe, expect, it } from 'vitest';
import { EMPTY_METADATA, type Dataset } from '@studio/schema';
import { drawChoice, drawnFromTiles, formatSize } from '../src/map/tile-choice/choice';
import { upgradeMapState, wrapKeplerConfig } from '../src/map/state/versions';

/** The map's choice between a dataset's own tiles and all its rows (#50), and the sentence the layer panel prints. */
const T = { rows: 2_000_000, bytes: 250 * 2 ** 20 };
const points = (rowCount: number, byteSize: number, type: Dataset['type'] = 'managed'): Pick<Dataset, 'type' | 'metadata'> => ({
  type,
  metadata: { ...EMPTY_METADATA, rowCount, byteSize, detected: { latitude: 'lat', longitude: 'lng' } },
});

describe('drawing a dataset from tiles or all its rows', () => {
  it.each([
    ['past the rows', points(5_000_000, 1_000_000), undefined, 'tiles', 'threshold', "Drawn from tiles: 5,000,000 rows is past this studio's 2,000,000-row threshold"],
    ['past the bytes', points(10_000, 300 * 2 ** 20), undefined, 'tiles', 'threshold', "Drawn from tiles: 300 MB of stored data is past this studio's 250 MB threshold"],
    ['at the threshold', points(2_000_000, 250 * 2 ** 20), undefined, 'rows', 'threshold', "All 2,000,000 rows drawn: within this studio's threshold: 2,000,000 rows or 250 MB"],
    ['past it, set to all rows', points(5_000_000, 1_000_000), 'rows', 'rows', 'layer', "All 5,000,000 rows drawn, as set for this layer (this studio's threshold: 2,000,000 rows or 250 MB)"],
    ['within it, set to tiles', points(60, 2_000), 'tiles', 'tiles', 'layer', "Drawn from tiles, as set for this layer (60 rows; this studio's threshold: 2,000,000 rows or 250 MB)"],
  ] as const)('%s', (_what, meta, override, draw, by, text) => {
    expect(drawChoice(meta, T, override)).toEqual({ draw, by, text });
  });

  it('offers no choice for a dataset that has no location or is not a table dataset', () => {
    expect(drawChoice({ ...points(5_000_000, 0), metadata: { ...EMPTY_METADATA, rowCount: 5_000_000 } }, T)).toBeNull();
    expect(drawChoice(points(5_000_000, 0, 'hex-tile'), T)).toBeNull();
  });

  it.each([
    [512, '512 B'],
    [250 * 2 ** 20, '250 MB'],
    [1.5 * 2 ** 30, '1.5 GB'],
  ])('sizes read as the setting does: %d is %s', (bytes, text) => expect(formatSize(bytes)).toBe(text));

  it("keeps a layer's override in the saved map state, and maps saved before it have none", () => {
    const kepler = { version: 'v1', config: { visState: {} } };
    expect(upgradeMapState(wrapKeplerConfig(kepler, { 'ds-1': 'rows' }))).toEqual({ studioVersion: 1, kepler, draw: { 'ds-1': 'rows' } });
    expect(upgradeMapState(wrapKeplerConfig(kepler))).toEqual({ studioVersion: 1, kepler });
    expect(() => upgradeMapState({ studioVersion: 1, kepler, draw: { 'ds-1': 'everything' } })).toThrow(/draw/);
  });

  it('reads which datasets a saved map drew from tiles: those of its vector tile layers', () => {
    const layers = [
      { type: 'vectorTile', config: { dataId: 'big' } },
      { type: 'point', config: { dataId: 'small' } },
      { type: 'vectorTile', config: {} },
    ];
    expect([...drawnFromTiles(wrapKeplerConfig({ version: 'v1', config: { visState: { layers } } }))]).toEqual(['big']);
    expect(drawnFromTiles(null).size).toBe(0);
  });
});
