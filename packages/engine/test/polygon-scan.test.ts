import { Field, RecordBatch, Schema, Struct, Table, Utf8, makeData, tableFromIPC, tableToIPC, vectorFromArray, type Vector } from 'apache-arrow';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { geoArrowStream } from '../src/geoarrow';
import { parseGeometry } from '../src/geometry-text';

/**
 * The map's GeoArrow answer reads plain Polygon/MultiPolygon text with its own scanner (polygon-scan.ts) and the rest
 * through parseGeometry: every text must come out as the shapes parseGeometry reads from it (the oracle), bit for bit
 * (toEqual tells -0 from 0), or as a null geometry where it reads none.
 */

type Multi = number[][][][];
/** What parseGeometry reads from the text, as a geoarrow.multipolygon cell: a Polygon is a multipolygon of one part. */
function oracle(text: string | null): Multi | null {
  const g = text == null ? null : parseGeometry(text);
  if (!g) return null;
  if (g.type === 'Polygon') return [g.coordinates.map((r) => r.map((p) => [p[0]!, p[1]!]))];
  if (g.type === 'MultiPolygon') return g.coordinates.map((poly) => poly.map((r) => r.map((p) => [p[0]!, p[1]!])));
  throw new Error(`not polygonal: ${g.type}`);
}
const cell = (v: Vector | null): Multi | null => (v == null ? null : [...v].map((p: Vector) => [...p].map((r: Vector) => [...r].map((xy: Vector) => [...xy] as number[]))));

/** The texts through geoArrowStream in batches of `batch` rows, read back as cells. */
async function throughStream(texts: (string | null)[], batch = 3): Promise<(Multi | null)[]> {
  const fields = [new Field('geometry', new Utf8(), true)];
  const batches: RecordBatch[] = [];
  for (let s = 0; s < texts.length; s += batch) {
    const g = vectorFromArray(texts.slice(s, s + batch), new Utf8());
    batches.push(new RecordBatch(new Schema(fields), makeData({ type: new Struct(fields), length: g.length, nullCount: 0, children: [g.data[0]!] })));
  }
  const ipc = tableToIPC(new Table(batches), 'stream');
  const parts: Uint8Array[] = [];
  for await (const p of geoArrowStream((async function* () { yield ipc; })(), 'geometry')) parts.push(p);
  const table = tableFromIPC(parts[0]!);
  expect(table.schema.fields[0]!.metadata.get('ARROW:extension:name')).toBe('geoarrow.multipolygon');
  return [...table.getChildAt(0)!].map((v) => cell(v as Vector | null));
}

const CASES: (string | null)[] = [
  '{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}',
  '{"type":"Polygon","coordinates":[[[-122.41941550000001,37.774929],[-0,-0.0],[1e-7,2E+3],[-1.5e2,0.1],[-122.41941550000001,37.774929]]]}',
  '{"type":"MultiPolygon","coordinates":[[[[20,20],[21,20],[21,21],[20,20]]],[[[30,30],[31,30],[31,31],[30,30]],[[30.2,30.2],[30.4,30.2],[30.2,30.4],[30.2,30.2]]]]}',
  // A third and fourth number (Z, M) are dropped.
  '{"type":"Polygon","coordinates":[[[0,0,5],[1,0,5,1],[1,1,5],[0,0,5]]]}',
  // Whitespace inside, before and after.
  '  {"type":"Polygon","coordinates": [ [ [0 , 0] ,[1,0],\n[1,1],[0,0] ] ] }\n',
  // Empty rings, polygons and parts.
  '{"type":"Polygon","coordinates":[]}',
  '{"type":"Polygon","coordinates":[[]]}',
  '{"type":"MultiPolygon","coordinates":[]}',
  '{"type":"MultiPolygon","coordinates":[[],[[]]]}',
  // Not the plain form: parsed the general way.
  '{"type": "Polygon", "coordinates": [[[0,0],[1,0],[1,1],[0,0]]]}',
  '{"coordinates":[[[0,0],[1,0],[1,1],[0,0]]],"type":"Polygon"}',
  '{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]],"bbox":[0,0,1,1]}',
  '{"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}}',
  'POLYGON ((0 0, 1 0, 1 1, 0 0))',
  'SRID=4326;MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)))',
  '1234567890123456.5 is not a polygon',
  // Numbers JSON refuses, broken text: a null geometry, as parseGeometry reads none.
  '{"type":"Polygon","coordinates":[[[01,0],[1,0],[1,1],[01,0]]]}',
  '{"type":"Polygon","coordinates":[[[1.,0],[1,0],[1,1],[1.,0]]]}',
  '{"type":"Polygon","coordinates":[[[.5,0],[1,0],[1,1],[.5,0]]]}',
  '{"type":"Polygon","coordinates":[[[1e,0],[1,0],[1,1],[1e,0]]]}',
  '{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]',
  '{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}x',
  '{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0],]]}',
  null,
  '',
];

describe('GeoArrow polygons read from their text (#46)', () => {
  it('gives the shapes parseGeometry reads, for plain, spaced, other and broken texts, across batches', async () => {
    const readable = CASES.filter((t) => {
      // Texts parseGeometry reads as something other than polygons (none here) would keep the column as text.
      const g = t == null ? null : parseGeometry(t);
      return !g || g.type === 'Polygon' || g.type === 'MultiPolygon';
    });
    expect(readable).toEqual(CASES);
    expect(await throughStream(CASES)).toEqual(CASES.map(oracle));
  });

  it('reads any double as JSON.parse does, 15 digits or more, with or without exponents', async () => {
    const coordinate = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.double({ min: -180, max: 180, noNaN: true }), fc.integer({ min: -1e6, max: 1e6 }));
    const text = fc.array(fc.array(fc.tuple(coordinate, coordinate), { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 3 }).map((rings) => JSON.stringify({ type: 'Polygon', coordinates: rings }));
    const hand = fc.tuple(fc.integer({ min: 0, max: 999999 }), fc.integer({ min: 0, max: 999999999 }), fc.constantFrom('', 'e5', 'E-12', 'e+300')).map(([i, f, e]) => `{"type":"Polygon","coordinates":[[[-${i}.${f}${e},${f}.${i}],[0.${f},-0.0${i}${e}]]]}`);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(text, hand), { minLength: 1, maxLength: 8 }), async (texts) => {
        expect(await throughStream(texts)).toEqual(texts.map(oracle));
      }),
      { numRuns: 200 },
    );
  });
});
