import { StudioError } from '@studio/schema';
import { describe, expect, it } from 'vitest';
import { checkPipeline, compilePipeline, validatePipeline } from '../src/index';

const ds = { type: 'dataset', uuid: 'u1' };
const poly = { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]] };
const feature = { type: 'Feature', properties: {}, geometry: poly };
const enrich = (p: object) => ({ type: 'enrich', sourceId: 's', sourceColumn: 'pop', targetType: 'H3', column: 'hex', input: [ds], ...p });

/** Valid nodes, one or more per type. */
const valid: [string, unknown][] = [
  ['dataset', ds],
  ['databaseQuery', { type: 'databaseQuery', query: 'select 1', connectionId: 'c', params: ['a'] }],
  ['enrich H3', enrich({})],
  ['enrich source + list + time', enrich({ sourceId: undefined, source: 's', sourceColumn: ['a', 'b'], timeColumn: 't', timeInterval: 'SECOND' })],
  ['enrich LATLNG', enrich({ targetType: 'LATLNG', column: undefined, latColumn: 'lat', lngColumn: 'lng' })],
  ['filter', { type: 'filter', expression: 'a > 1', input: [ds] }],
  ['group (only by)', { type: 'group', by: ['a'], expressions: [], input: [ds] }],
  ['group (only expressions)', { type: 'group', by: [], expressions: ['count(*)'], input: [ds] }],
  ['hexTile', { type: 'hexTile', uuid: 'u', tileIndex: '85283473fffffff', resolutionOffset: 15 }],
  ['hexify res 0', { type: 'hexify', geojson: poly, res: 0 }],
  ['hexify res 15 Feature + columnName', { type: 'hexify', geojson: feature, res: 15, columnName: 'h' }],
  ['inline_data CSV', { type: 'inline_data', format: 'CSV', data: 'a\n1' }],
  ['inline_data JSON_OBJECT', { type: 'inline_data', format: 'JSON_OBJECT', data: [{ a: 1 }] }],
  ['join FULL', { type: 'join', join: 'FULL', on: [{ columns: ['k'] }], input: [ds, ds] }],
  ['limit offset 0', { type: 'limit', length: 1, offset: 0, input: [ds] }],
  ['limit no offset', { type: 'limit', length: 5, input: [ds] }],
  ['select', { type: 'select', expressions: ['a', 'b AS c'], input: [ds] }],
  ['sort', { type: 'sort', by: ['a', 'desc(b)', 'asc("c d")'], input: [ds] }],
  ['tileExtract', { type: 'tileExtract', sourceId: 's', geojson: feature, res: 15, maxRows: 1 }],
  ['tileJoin', { type: 'tileJoin', input: [ds, ds, ds] }],
  ['tileQuantiles', { type: 'tileQuantiles', uuid: 'u', res: 0, interval: 'Y' }],
];

/** Invalid nodes with the exact message and the path of the failing node. */
const invalid: [string, unknown, string, string][] = [
  ['not an object', 'x', 'A pipeline node must be an object', 'at root'],
  ['unknown type', { type: 'nope' }, 'Unknown node type: nope (expected one of dataset, inline_data, select, filter, group, sort, limit, join, enrich, hexify, tileExtract, databaseQuery, hexTile, tileJoin, tileQuantiles, spatialJoin, aggregateInPolygons, nearest, buffer, centroid, measure, dissolve, clip)', 'at root'],
  ['databaseQuery empty query', { type: 'databaseQuery', query: '', connectionId: 'c' }, 'databaseQuery node: query must not be empty', 'at root (databaseQuery)'],
  ['databaseQuery no connectionId', { type: 'databaseQuery', query: 'q' }, 'databaseQuery node: connectionId must be a string', 'at root (databaseQuery)'],
  ['databaseQuery params not strings', { type: 'databaseQuery', query: 'q', connectionId: 'c', params: [1] }, 'databaseQuery node: params entries must be strings', 'at root (databaseQuery)'],
  ['dataset empty uuid', { type: 'dataset', uuid: '' }, 'dataset node: uuid must not be empty', 'at root (dataset)'],
  ['enrich no source', enrich({ sourceId: undefined }), 'Either source or sourceId is required', 'at root (enrich)'],
  ['enrich no sourceColumn', enrich({ sourceColumn: undefined }), 'Invalid prop for enrichment node: sourceColumn', 'at root (enrich)'],
  ['enrich H3 no column', enrich({ column: undefined }), 'Invalid prop for enrichment node: column', 'at root (enrich)'],
  ['enrich LATLNG no lngColumn', enrich({ targetType: 'LATLNG', latColumn: 'lat' }), 'Invalid prop for enrichment node: lngColumn', 'at root (enrich)'],
  ['enrich bad targetType', enrich({ targetType: 'S2' }), 'Invalid prop for enrichment node: targetType', 'at root (enrich)'],
  ['enrich bad timeInterval', enrich({ timeColumn: 't', timeInterval: 'WEEK' }), 'Invalid prop for enrichment node: timeInterval', 'at root (enrich)'],
  ['enrich timeColumn without interval', enrich({ timeColumn: 't' }), 'Invalid prop for enrichment node: timeInterval', 'at root (enrich)'],
  ['filter not a string', { type: 'filter', expression: 3, input: [ds] }, 'filter node: expression must be a string', 'at root (filter)'],
  ['filter bad syntax', { type: 'filter', expression: 'a >', input: [ds] }, 'Invalid expression: unexpected end of expression at position 3 in "a >"', 'at root (filter)'],
  ['filter unknown function', { type: 'filter', expression: 'evil(a) > 1', input: [ds] }, "Invalid expression: unknown function 'evil' at position 0 in \"evil(a) > 1\"", 'at root (filter)'],
  ['filter no input', { type: 'filter', expression: 'a' }, 'filter node: exactly one input is required', 'at root (filter)'],
  ['group both empty', { type: 'group', by: [], expressions: [], input: [ds] }, 'group node: by or expressions must not be empty', 'at root (group)'],
  ['group by not strings', { type: 'group', by: [1], expressions: [], input: [ds] }, 'group node: by entries must be strings', 'at root (group)'],
  ['hexTile bad index', { type: 'hexTile', uuid: 'u', tileIndex: 'zzz' }, 'hexTile node: tileIndex must be a valid H3 index', 'at root (hexTile)'],
  ['hexTile offset 0', { type: 'hexTile', uuid: 'u', tileIndex: '85283473fffffff', resolutionOffset: 0 }, 'hexTile node: resolutionOffset must be an integer from 1 to 15', 'at root (hexTile)'],
  ['hexTile offset 16', { type: 'hexTile', uuid: 'u', tileIndex: '85283473fffffff', resolutionOffset: 16 }, 'hexTile node: resolutionOffset must be an integer from 1 to 15', 'at root (hexTile)'],
  ['hexify res 16', { type: 'hexify', geojson: poly, res: 16 }, 'hexify node: res must be an integer from 0 to 15', 'at root (hexify)'],
  ['hexify res 1.5', { type: 'hexify', geojson: poly, res: 1.5 }, 'hexify node: res must be an integer from 0 to 15', 'at root (hexify)'],
  ['hexify point', { type: 'hexify', geojson: { type: 'Point', coordinates: [0, 0] }, res: 5 }, 'Unsupported geometry type', 'at root (hexify)'],
  ['hexify not geojson', { type: 'hexify', geojson: { foo: 1 }, res: 5 }, 'hexify node: geojson must be a GeoJSON object', 'at root (hexify)'],
  ['hexify bad ring', { type: 'hexify', geojson: { type: 'Polygon', coordinates: [[[0, 0], [1, 1]]] }, res: 5 }, 'hexify node: invalid Polygon coordinates', 'at root (hexify)'],
  ['inline_data bad format', { type: 'inline_data', format: 'XML', data: '<a/>' }, 'inline_data node: format must be CSV or JSON_OBJECT', 'at root (inline_data)'],
  ['inline_data empty CSV', { type: 'inline_data', format: 'CSV', data: ' ' }, 'inline_data node: data must not be empty', 'at root (inline_data)'],
  ['inline_data empty JSON', { type: 'inline_data', format: 'JSON_OBJECT', data: [] }, 'inline_data node: data must not be empty', 'at root (inline_data)'],
  ['inline_data CSV not a string', { type: 'inline_data', format: 'CSV', data: [1] }, 'inline_data node: CSV data must be a string', 'at root (inline_data)'],
  ['join bad type', { type: 'join', join: 'RIGHT', on: [{ columns: ['k'] }], input: [ds, ds] }, 'join node: join must be LEFT, INNER or FULL', 'at root (join)'],
  ['join empty on', { type: 'join', join: 'LEFT', on: [], input: [ds, ds] }, 'join node: on must not be empty', 'at root (join)'],
  ['join one input', { type: 'join', join: 'LEFT', on: [{ columns: ['k'] }], input: [ds] }, 'join node: exactly two inputs are required', 'at root (join)'],
  ['limit length 0', { type: 'limit', length: 0, input: [ds] }, 'limit node: length must be an integer above 0', 'at root (limit)'],
  ['limit negative offset', { type: 'limit', length: 1, offset: -1, input: [ds] }, 'limit node: offset must be a non-negative integer', 'at root (limit)'],
  ['select empty', { type: 'select', expressions: [], input: [ds] }, 'select node: expressions must not be empty', 'at root (select)'],
  ['sort empty', { type: 'sort', by: [], input: [ds] }, 'sort node: by must not be empty', 'at root (sort)'],
  ['tileExtract polygon not a Feature', { type: 'tileExtract', sourceId: 's', geojson: poly }, 'Unsupported geometry type', 'at root (tileExtract)'],
  ['tileExtract line feature', { type: 'tileExtract', sourceId: 's', geojson: { type: 'Feature', geometry: { type: 'LineString', coordinates: [[0, 0], [1, 1]] } } }, 'Unsupported geometry type', 'at root (tileExtract)'],
  ['tileExtract res 16', { type: 'tileExtract', sourceId: 's', geojson: feature, res: 16 }, 'tileExtract node: res must be an integer from 0 to 15', 'at root (tileExtract)'],
  ['tileExtract maxRows 0', { type: 'tileExtract', sourceId: 's', geojson: feature, maxRows: 0 }, 'tileExtract node: maxRows must be a positive integer', 'at root (tileExtract)'],
  ['tileJoin one input', { type: 'tileJoin', input: [ds] }, 'tileJoin node: at least two inputs are required', 'at root (tileJoin)'],
  ['tileQuantiles bad interval', { type: 'tileQuantiles', uuid: 'u', res: 3, interval: 'W' }, 'tileQuantiles node: interval must be one of T, H, D, M, Y', 'at root (tileQuantiles)'],
  ['tileQuantiles res -1', { type: 'tileQuantiles', uuid: 'u', res: -1, interval: 'D' }, 'tileQuantiles node: res must be an integer from 0 to 15', 'at root (tileQuantiles)'],
  [
    'nested path',
    { type: 'limit', length: 1, input: [{ type: 'join', join: 'LEFT', on: [{ columns: ['k'] }], input: [ds, { type: 'filter', expression: 'a >> 1', input: [ds] }] }] },
    'Invalid expression: unexpected \'>\' at position 3 in "a >> 1"',
    'at input[0].input[1] (filter)',
  ],
];

describe('validatePipeline', () => {
  it.each(valid)('accepts %s', (_n, node) => {
    expect(validatePipeline(node)).toMatchObject({ type: (node as { type: string }).type });
    expect(checkPipeline(node).ok).toBe(true);
  });
  it.each(invalid)('refuses %s', (_n, node, message, details) => {
    let err: unknown;
    try { validatePipeline(node); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(StudioError);
    expect(err).toMatchObject({ status: 422, message, details });
    const r = checkPipeline(node);
    expect(r).toMatchObject({ ok: false, message });
  });
  it('checkPipeline reports the path', () => {
    expect(checkPipeline(invalid.at(-1)![1])).toEqual({ ok: false, path: 'input[0].input[1]', message: invalid.at(-1)![2] });
  });
});

describe('compile-time refusals', () => {
  const ctx = { dialect: 'duckdb' as const, resolveDataset: () => ({ relationSql: 't' }) };
  it.each([
    ['aggregate in a filter', { type: 'filter', expression: 'sum(a) > 1', input: [ds] }, 'filter node: aggregate functions are not allowed in a filter (use a group node)'],
    ['bare column in group', { type: 'group', by: ['a'], expressions: ['b'], input: [ds] }, "group node: column b must be in 'by' or inside an aggregate ('b')"],
    ['nested aggregate', { type: 'group', by: [], expressions: ['sum(max(a))'], input: [ds] }, 'Invalid expression: aggregate functions cannot be nested at position 4 in "sum(max(a))"'],
    ['bad date_trunc unit', { type: 'select', expressions: ["date_trunc('week', t)"], input: [ds] }, "Invalid expression: date_trunc unit must be one of 'year', 'month', 'day', 'hour', 'minute', 'second' at position 11 in \"date_trunc('week', t)\""],
    ['CSV ragged row', { type: 'inline_data', format: 'CSV', data: 'a,b\n1' }, 'inline_data node: CSV row 2 has 1 fields, the header has 2'],
    ['hexify too many cells', { type: 'hexify', res: 15, geojson: { type: 'Polygon', coordinates: [[[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]]] } }, /^hexify node: the polygon covers about \d+ cells at res 15, more than 5000000$/],
  ])('%s', (_n, node, message) => {
    expect(() => compilePipeline(node, ctx)).toThrow(message instanceof RegExp ? message : expect.objectContaining({ status: 422, message }));
  });

  it('compile-time errors carry the node path too', () => {
    const node = { type: 'limit', length: 1, input: [{ type: 'group', by: ['a'], expressions: ['b'], input: [ds] }] };
    expect(() => compilePipeline(node, ctx)).toThrow(expect.objectContaining({ status: 422, details: 'at input[0] (group)' }));
  });

  it('H3 on postgres is a 409 naming the missing extension', () => {
    const node = { type: 'select', expressions: ['h3_latlng_to_cell(lat, lng, 9)'], input: [ds] };
    expect(() => compilePipeline(node, { ...ctx, dialect: 'postgres' })).toThrow(
      expect.objectContaining({ status: 409, message: 'H3 functions need an H3 extension, which the PostgreSQL connection does not have' }),
    );
  });

  it('user text never reaches SQL: identifiers are quoted, literals are parameters', () => {
    const node = { type: 'filter', expression: `"x""; drop table t; --" = 'o''; drop table t; --'`, input: [ds] };
    const q = compilePipeline(node, ctx);
    expect(q.sql).toContain('"x""; drop table t; --"');
    expect(q.sql).not.toContain("o'");
    expect(q.params).toEqual(["o'; drop table t; --"]);
  });
});
