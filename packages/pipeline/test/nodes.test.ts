import { cellToLatLng, cellToParent, getResolution, latLngToCell, polygonToCells } from 'h3-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StudioError } from '@studio/schema';
import type { Row } from '../src/index';
import { Engines, ordered, unordered, type Engine } from './engines';
import { TABLES, cells, ds, lefts, people, pick, rights } from './fixtures';

/** A case: a pipeline and its expected rows, worked out here in plain TS (never by running an engine). */
type Case = { name: string; pipeline: unknown; expect: Row[]; ordered?: boolean; h3?: boolean };

const P = people;
const num = (v: unknown) => v as number;
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const nonNull = (xs: unknown[]) => xs.filter((x) => x !== null && x !== undefined) as number[];
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0 ? null : s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const groupBy = (rows: Row[], key: string) => {
  const g = new Map<unknown, Row[]>();
  for (const r of rows) g.set(r[key] ?? null, [...(g.get(r[key] ?? null) ?? []), r]);
  return g;
};

// A ~1.1 x 1.1 km square in San Francisco and a box around a res-0 cell's center.
const sq = (lng: number, lat: number, d: number) => ({
  type: 'Polygon',
  coordinates: [[[lng - d, lat - d], [lng + d, lat - d], [lng + d, lat + d], [lng - d, lat + d], [lng - d, lat - d]]],
});
const res0Cell = latLngToCell(37.77, -122.42, 0);
const [c0lat, c0lng] = cellToLatLng(res0Cell);
const tinySquare = sq(-122.4194, 37.7749, 0.00002); // about 4 m across: a handful of res-15 cells

const cases: Case[] = [
  { name: 'dataset: all rows', pipeline: ds('people'), expect: P },
  {
    name: 'inline CSV: types inferred, empty -> NULL',
    pipeline: { type: 'inline_data', format: 'CSV', data: 'i,d,b,t,s\n1,1.5,true,2024-01-02 03:04:05,x\n-2,,false,,"a,""b"""\n,3,,2024-05-06,\n' },
    expect: [
      { i: 1, d: 1.5, b: true, t: '2024-01-02T03:04:05.000Z', s: 'x' },
      { i: -2, d: null, b: false, t: null, s: 'a,"b"' },
      { i: null, d: 3, b: null, t: '2024-05-06T00:00:00.000Z', s: null },
    ],
  },
  {
    name: 'inline JSON_OBJECT: missing keys are NULL',
    pipeline: { type: 'inline_data', format: 'JSON_OBJECT', data: [{ a: 1, b: 'x' }, { a: 2.5 }, { b: 'y', c: true }] },
    expect: [{ a: 1, b: 'x', c: null }, { a: 2.5, b: null, c: null }, { a: null, b: 'y', c: true }],
  },
  {
    name: 'filter: comparison drops NULLs (three-valued logic)',
    pipeline: { type: 'filter', expression: 'metric1 > 6', input: [ds('people')] },
    expect: P.filter((r) => r.metric1 !== null && num(r.metric1) > 6),
  },
  {
    name: 'filter: NOT of unknown is unknown',
    pipeline: { type: 'filter', expression: 'NOT (metric1 > 6)', input: [ds('people')] },
    expect: P.filter((r) => r.metric1 !== null && !(num(r.metric1) > 6)),
  },
  {
    name: 'filter: != and <> skip NULL',
    pipeline: { type: 'filter', expression: "city != 'x' AND city <> 'z'", input: [ds('people')] },
    expect: P.filter((r) => r.city !== null && r.city !== 'x' && r.city !== 'z'),
  },
  {
    name: 'filter: OR with unknown and TRUE is TRUE',
    pipeline: { type: 'filter', expression: "metric1 > 6 OR name = 'bob'", input: [ds('people')] },
    expect: P.filter((r) => (r.metric1 !== null && num(r.metric1) > 6) || r.name === 'bob'),
  },
  {
    name: 'filter: IS NULL / IS NOT NULL',
    pipeline: { type: 'filter', expression: 'name IS NULL OR metric2 IS NULL', input: [ds('people')] },
    expect: P.filter((r) => r.name === null || r.metric2 === null),
  },
  {
    name: 'filter: IN, BETWEEN, LIKE',
    pipeline: { type: 'filter', expression: "metric1 IN (5, 10) AND id BETWEEN 2 AND 5 OR name LIKE 'e%'", input: [ds('people')] },
    expect: P.filter((r) => ([5, 10].includes(num(r.metric1)) && num(r.id) >= 2 && num(r.id) <= 5) || String(r.name).startsWith('e')),
  },
  {
    name: 'filter: NOT IN with a NULL operand, NOT LIKE',
    pipeline: { type: 'filter', expression: "metric1 NOT IN (10) AND name NOT LIKE '%y'", input: [ds('people')] },
    expect: P.filter((r) => r.metric1 !== null && r.metric1 !== 10 && r.name !== null && !String(r.name).endsWith('y')),
  },
  {
    name: 'filter: timestamp against a string literal',
    pipeline: { type: 'filter', expression: "ts >= '2024-02-01'", input: [ds('people')] },
    expect: P.filter((r) => r.ts !== null && String(r.ts) >= '2024-02-01'),
  },
  {
    name: 'select: arithmetic, aliases, quoted names, division by zero -> NULL',
    pipeline: {
      type: 'select',
      expressions: ['id', 'metric1 * 2 + 1 AS m', '"metric2" / 0 AS z', 'metric1 % 3 AS r', 'id / 2 AS half', "concat(name, '-', city) AS nc", 'upper(name)'],
      input: [ds('people')],
    },
    expect: P.map((r) => ({
      id: r.id,
      m: r.metric1 === null ? null : num(r.metric1) * 2 + 1,
      z: null,
      r: r.metric1 === null ? null : num(r.metric1) % 3,
      half: num(r.id) / 2,
      nc: `${r.name ?? ''}-${r.city ?? ''}`,
      upper_name: r.name === null ? null : String(r.name).toUpperCase(),
    })),
  },
  {
    name: 'select: scalar and date functions',
    pipeline: {
      type: 'select',
      expressions: ['id', 'round(metric2 * 1.25, 1) AS rr', 'coalesce(metric1, -1) AS c', 'year(ts) AS y', 'month(ts) AS mo', "date_trunc('month', ts) AS tm", 'epoch_ms(ts) AS e', 'length(name) AS len'],
      input: [ds('people')],
    },
    expect: P.map((r) => {
      const d = r.ts === null ? null : new Date(String(r.ts));
      return {
        id: r.id,
        rr: r.metric2 === null ? null : Math.round(num(r.metric2) * 1.25 * 10) / 10,
        c: r.metric1 ?? -1,
        y: d ? d.getUTCFullYear() : null,
        mo: d ? d.getUTCMonth() + 1 : null,
        tm: d ? new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)).toISOString() : null,
        e: d ? d.getTime() : null,
        len: r.name === null ? null : String(r.name).length,
      };
    }),
  },
  {
    name: 'group: count(*), count skips NULL, sum, mean, min, max, median of an even count',
    pipeline: {
      type: 'group',
      by: ['city'],
      expressions: ['count(*)', 'count(metric1) AS n1', 'sum(metric1) AS s', 'mean(metric2) AS avg2', 'min(metric1)', 'max(name) AS mx', 'median(metric1) AS med'],
      input: [ds('people')],
    },
    expect: [...groupBy(P, 'city')].map(([city, rs]) => {
      const m1 = nonNull(rs.map((r) => r.metric1));
      const m2 = nonNull(rs.map((r) => r.metric2));
      const names = rs.map((r) => r.name).filter((x) => x !== null) as string[];
      return {
        city,
        count: rs.length,
        n1: m1.length,
        s: m1.length ? sum(m1) : null,
        avg2: m2.length ? sum(m2) / m2.length : null,
        min_metric1: m1.length ? Math.min(...m1) : null,
        mx: names.length ? names.sort().at(-1)! : null,
        med: median(m1),
      };
    }),
  },
  {
    name: 'group: no by (whole table), mode, median of 5 values',
    pipeline: { type: 'group', by: [], expressions: ['count(*) AS n', 'mode(metric1) AS mo', 'median(metric1) AS med'], input: [ds('people')] },
    expect: [{ n: P.length, mo: 10, med: median(nonNull(P.map((r) => r.metric1))) }],
  },
  {
    name: 'sort: desc, NULLs last, then asc tiebreak',
    pipeline: { type: 'sort', by: ['desc(metric1)', 'asc(id)'], input: [ds('people')] },
    ordered: true,
    expect: [...P].sort((a, b) => {
      if (a.metric1 === null) return 1;
      if (b.metric1 === null) return -1;
      return num(b.metric1) - num(a.metric1) || num(a.id) - num(b.id);
    }),
  },
  {
    name: 'limit with offset after a sort; order kept through filter and select',
    pipeline: {
      type: 'select', expressions: ['id'],
      input: [{ type: 'limit', length: 3, offset: 1, input: [{ type: 'filter', expression: 'id <> 4', input: [{ type: 'sort', by: ['id'], input: [ds('people')] }] }] }],
    },
    ordered: true,
    expect: [{ id: 2 }, { id: 3 }, { id: 5 }],
  },
  {
    name: 'limit: offset 0 is allowed',
    pipeline: { type: 'limit', length: 2, offset: 0, input: [{ type: 'sort', by: ['desc(id)'], input: [ds('people')] }] },
    ordered: true,
    expect: [P[5]!, P[4]!],
  },
  {
    name: 'join INNER: NULL keys never match, key appears once',
    pipeline: { type: 'join', join: 'INNER', on: [{ columns: ['k'] }], input: [ds('lefts'), ds('rights')] },
    expect: lefts.flatMap((l) => rights.filter((r) => l.k !== null && r.k === l.k).map((r) => ({ k: l.k, a: l.a, b: r.b }))),
  },
  {
    name: 'join LEFT: unmatched left rows kept with NULLs',
    pipeline: { type: 'join', join: 'LEFT', on: [{ columns: ['k'] }], input: [ds('lefts'), ds('rights')] },
    expect: lefts.flatMap((l) => {
      const m = rights.filter((r) => l.k !== null && r.k === l.k);
      return m.length ? m.map((r) => ({ k: l.k, a: l.a, b: r.b })) : [{ k: l.k, a: l.a, b: null }];
    }),
  },
  {
    name: 'join FULL with NULL keys: key coalesced from whichever side exists',
    pipeline: { type: 'join', join: 'FULL', on: [{ columns: ['k'] }], input: [ds('lefts'), ds('rights')] },
    expect: [
      ...lefts.flatMap((l) => {
        const m = rights.filter((r) => l.k !== null && r.k === l.k);
        return m.length ? m.map((r) => ({ k: l.k, a: l.a, b: r.b })) : [{ k: l.k, a: l.a, b: null }];
      }),
      ...rights.filter((r) => r.k === null || !lefts.some((l) => l.k === r.k)).map((r) => ({ k: r.k, a: null, b: r.b })),
    ],
  },
  {
    name: 'enrich H3: matched rows get source columns, no match keeps the row with NULLs',
    pipeline: {
      type: 'enrich', sourceId: 'cells', sourceColumn: 'pop', targetType: 'H3', column: 'cell',
      input: [{ type: 'inline_data', format: 'JSON_OBJECT', data: [{ id: 1, cell: cells[0]!.hex }, { id: 2, cell: latLngToCell(0, 0, 7) }] }],
    },
    expect: [{ id: 1, cell: cells[0]!.hex, pop: 100 }, { id: 2, cell: latLngToCell(0, 0, 7), pop: null }],
  },
  {
    name: 'enrich LATLNG with a DAY time match',
    h3: true,
    pipeline: {
      type: 'enrich', source: 'cells', sourceColumn: ['pop'], targetType: 'LATLNG', latColumn: 'lat', lngColumn: 'lng',
      timeColumn: 'ts', timeInterval: 'DAY', sourceTimeColumn: 'day', input: [{ type: 'select', expressions: ['id', 'lat', 'lng', 'ts'], input: [ds('people')] }],
    },
    expect: P.map((r) => {
      const c = r.lat === null ? null : latLngToCell(num(r.lat), num(r.lng), 7);
      const m = cells.find((s) => s.hex === c && r.ts !== null && String(s.day).slice(0, 10) === String(r.ts).slice(0, 10));
      return { id: r.id, lat: r.lat, lng: r.lng, ts: r.ts, pop: m ? m.pop : null };
    }),
  },
  {
    name: 'hexify res 0: the cell whose center the box holds',
    pipeline: { type: 'hexify', geojson: sq(c0lng, c0lat, 0.5), res: 0 },
    expect: [{ hex: res0Cell }],
  },
  {
    name: 'hexify res 15 with columnName, Feature wrapper',
    pipeline: { type: 'hexify', res: 15, columnName: 'h', geojson: { type: 'Feature', properties: {}, geometry: tinySquare } },
    // Checked below independently: every cell is res 15 with its center inside the square.
    expect: polygonToCells(tinySquare.coordinates, 15, true).map((h) => ({ h })),
  },
  {
    name: 'H3 expressions: latlng -> cell, parent, resolution, cell center',
    h3: true,
    pipeline: {
      type: 'select',
      expressions: ['id', 'h3_latlng_to_cell(lat, lng, 9) AS c9', 'h3_cell_to_parent(h3_latlng_to_cell(lat, lng, 9), 5) AS c5', 'h3_get_resolution(h3_latlng_to_cell(lat, lng, 9)) AS r'],
      input: [{ type: 'filter', expression: 'lat IS NOT NULL', input: [ds('people')] }],
    },
    expect: P.filter((r) => r.lat !== null).map((r) => ({
      id: r.id,
      c9: latLngToCell(num(r.lat), num(r.lng), 9),
      c5: cellToParent(latLngToCell(num(r.lat), num(r.lng), 9), 5),
      r: 9,
    })),
  },
];

const engines = new Engines();
beforeAll(() => engines.start(TABLES));
afterAll(() => engines.stop());

describe.each<Engine>(['duckdb', 'postgres'])('%s', (engine) => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    if (c.h3 && engine === 'postgres') {
      // No h3 extension on PostgreSQL: the compiler says so (409) instead of emitting broken SQL.
      await expect(engines.run(engine, c.pipeline)).rejects.toMatchObject({ status: 409 });
      return;
    }
    const rows = await engines.run(engine, c.pipeline);
    if (c.ordered) expect(ordered(rows)).toEqual(ordered(c.expect));
    else expect(unordered(rows)).toEqual(unordered(c.expect));
  });
});

it('hexify res 15 cells are res 15 and centered inside the square (independent check)', async () => {
  const rows = await engines.run('duckdb', cases.find((c) => c.name.startsWith('hexify res 15'))!.pipeline);
  expect(rows.length).toBeGreaterThan(0);
  const ring = tinySquare.coordinates[0]!;
  const [minLng, minLat] = ring[0]!;
  const [maxLng, maxLat] = ring[2]!;
  for (const { h } of rows) {
    expect(getResolution(h as string)).toBe(15);
    const [lat, lng] = cellToLatLng(h as string);
    expect(lat >= minLat! && lat <= maxLat! && lng >= minLng! && lng <= maxLng!).toBe(true);
  }
});

it.each<Engine>(['duckdb', 'postgres'])('%s: an unknown column is a 422 at run time', async (engine) => {
  await expect(engines.run(engine, { type: 'filter', expression: 'nope > 1', input: [ds('people')] })).rejects.toMatchObject({
    status: 422,
    message: expect.stringMatching(/^The query failed: .*nope/),
  });
});

it('nodes name their missing prerequisite (409): a connection, a hex-tile store', async () => {
  const dbq = { type: 'databaseQuery', query: 'select 1', connectionId: 'c1' };
  await expect(engines.run('duckdb', dbq)).rejects.toMatchObject({ status: 409, message: 'The databaseQuery node needs a data connection' });
  const hq = { type: 'tileQuantiles', uuid: 'u', res: 5, interval: 'D' };
  await expect(engines.run('duckdb', hq)).rejects.toMatchObject({ status: 409, message: "The tileQuantiles node reads hex tiles, which only the studio's DuckDB engine holds" });
  await expect(engines.run('postgres', hq)).rejects.toBeInstanceOf(StudioError);
});

void pick;
