import path from 'node:path';
import { latLngToCell } from 'h3-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { specType } from '../src';
import { setup, type Ctx } from './helpers';

let ctx: Ctx;
beforeAll(async () => {
  ctx = await setup();
});
afterAll(() => ctx.cleanup());

describe('spec column types', () => {
  it.each([
    ['VARCHAR', 'STRING'],
    ['TINYINT', 'INTEGER'],
    ['SMALLINT', 'INTEGER'],
    ['INTEGER', 'INTEGER'],
    ['BIGINT', 'BIGINT'],
    ['UBIGINT', 'BIGINT'],
    ['HUGEINT', 'BIGINT'],
    ['FLOAT', 'FLOAT'],
    ['DOUBLE', 'DOUBLE'],
    ['DECIMAL(10,2)', 'DECIMAL'],
    ['BOOLEAN', 'BOOLEAN'],
    ['DATE', 'DATE'],
    ['TIMESTAMP', 'TIMESTAMP'],
    ['TIMESTAMP WITH TIME ZONE', 'TIMESTAMP'],
    ['TIMESTAMP_NS', 'TIMESTAMP'],
    ['INTEGER[]', 'ARRAY'],
    ['VARCHAR[3]', 'ARRAY'],
    ['STRUCT(a INTEGER, b VARCHAR)', 'STRUCT'],
    ['MAP(VARCHAR, INTEGER)', 'MAP'],
    ['JSON', 'VARIANT'],
    ['UNION(a INTEGER, b VARCHAR)', 'VARIANT'],
    ['UUID', 'STRING'],
  ])('%s -> %s', (duck, spec) => expect(specType(duck)).toBe(spec));

  it('maps the columns of an ingested Parquet file', async () => {
    const src = path.join(ctx.dir, 'types.parquet');
    await ctx.engine.query(`COPY (SELECT 1::TINYINT AS t, 2::INTEGER AS i, 3::BIGINT AS b, 1.5::FLOAT AS f, 2.5::DOUBLE AS d,
      1.25::DECIMAL(10,2) AS m, true AS o, DATE '2024-01-02' AS dt, TIMESTAMP '2024-01-02 03:04:05' AS ts,
      TIMESTAMPTZ '2024-01-02 03:04:05+00' AS tz, [1, 2] AS l, {'a': 1} AS s, MAP {'k': 1} AS mp, 'x' AS v)
      TO '${src}' (FORMAT parquet)`);
    const r = await ctx.engine.ingest({ sourceFile: src, contentType: 'application/x-parquet', key: 'types.parquet' });
    expect(Object.fromEntries(r.columns.map((c) => [c.name, c.type]))).toEqual({
      t: 'INTEGER', i: 'INTEGER', b: 'BIGINT', f: 'FLOAT', d: 'DOUBLE', m: 'DECIMAL', o: 'BOOLEAN', dt: 'DATE',
      ts: 'TIMESTAMP', tz: 'TIMESTAMP', l: 'ARRAY', s: 'STRUCT', mp: 'MAP', v: 'STRING',
    });
    const col = (n: string) => r.columns.find((c) => c.name === n)!;
    expect(col('m').duckdbType).toBe('DECIMAL(10,2)');
    expect(col('m').stats).toEqual({ nullCount: 0, min: 1.25, max: 1.25, mean: 1.25, distinctCount: 1 });
    expect(col('ts').stats).toMatchObject({ nullCount: 0, min: '2024-01-02 03:04:05', max: '2024-01-02 03:04:05' });
    expect(col('b').stats).toMatchObject({ min: 3, max: 3, mean: 3 });
    expect(col('l').stats).toEqual({ nullCount: 0 });
    expect(col('s').stats).toEqual({ nullCount: 0 });
  });
});

describe('role detection', () => {
  const points = Array.from({ length: 40 }, (_, i) => ({ lat: 40 + i / 100, lng: -74 + i / 100 }));

  it('finds h3 strings, hex-as-bigint cells, timestamps and WKT geometry', async () => {
    const lines = ['id,hex,cell_id,created_at,shape,y_value'];
    points.forEach((p, i) => {
      const cell = latLngToCell(p.lat, p.lng, 8);
      lines.push(
        `${i},${cell},${BigInt('0x' + cell).toString()},2024-03-0${1 + (i % 9)} 10:00:00,"POINT (${p.lng} ${p.lat})",${i * 1000}`,
      );
    });
    const src = await ctx.file('roles.csv', lines.join('\n') + '\n');
    const r = await ctx.engine.ingest({ sourceFile: src, contentType: 'text/csv', key: 'roles.parquet' });
    expect(r.detected).toEqual({ h3: 'hex', geometry: 'shape', timestamp: 'created_at' });
    const cols = Object.fromEntries(r.columns.map((c) => [c.name, c]));
    expect(cols.shape!.type).toBe('GEOMETRY');
    expect(cols.created_at!.role).toBe('timestamp');
    expect(cols.id!.role).toBeUndefined();
  });

  it('detects a bigint h3 column when no string one exists', async () => {
    const lines = ['n,cell'];
    points.forEach((p, i) => lines.push(`${i},${BigInt('0x' + latLngToCell(p.lat, p.lng, 5)).toString()}`));
    const src = await ctx.file('h3num.csv', lines.join('\n') + '\n');
    const r = await ctx.engine.ingest({ sourceFile: src, contentType: 'text/csv', key: 'h3num.parquet' });
    expect(r.detected).toEqual({ h3: 'cell' });
  });

  it.each([
    [['latitude', 'longitude'], { latitude: 'latitude', longitude: 'longitude' }],
    [['pickup_lat', 'pickup_lon'], { latitude: 'pickup_lat', longitude: 'pickup_lon' }],
    [['y', 'x'], { latitude: 'y', longitude: 'x' }],
    [['Lat', 'Long'], { latitude: 'Lat', longitude: 'Long' }],
  ])('lat/lng by name and range: %j', async ([a, b], expected) => {
    const body = `${a},${b},other\n` + points.map((p) => `${p.lat},${p.lng},1`).join('\n') + '\n';
    const src = await ctx.file(`ll-${a}.csv`, body);
    const r = await ctx.engine.ingest({ sourceFile: src, contentType: 'text/csv', key: `ll/${a}.parquet` });
    expect(r.detected).toEqual(expected);
  });

  it('ignores lat-named columns whose values are out of range', async () => {
    const body = 'lat,lng\n' + points.map((p) => `${p.lat * 10},${p.lng}`).join('\n') + '\n';
    const src = await ctx.file('far.csv', body);
    const r = await ctx.engine.ingest({ sourceFile: src, contentType: 'text/csv', key: 'far.parquet' });
    expect(r.detected).toEqual({});
  });
});

describe('stats', () => {
  const BIG_ROWS = 300_000;
  let big: Promise<{ name: string; stats: { distinctCount?: number } }[]> | null = null;
  /** 300,000 rows: columns of few values (text, floating point, integer) beside columns of as many values as rows. */
  const bigColumns = () =>
    (big ??= (async () => {
      const lines = ['id,name,x,cat,rating,code'];
      for (let i = 0; i < BIG_ROWS; i++) lines.push(`${i},name-${i},${i / 7},k${i % 7},${1 + (i % 9) / 2},${i % 97}`);
      const src = await ctx.file('big-stats.csv', lines.join('\n') + '\n');
      return (await ctx.engine.ingest({ sourceFile: src, contentType: 'text/csv', key: 'big-stats.parquet' })).columns;
    })());

  it('match values computed independently', async () => {
    // Deterministic pseudo-random data with nulls.
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const rows = Array.from({ length: 2000 }, (_, i) => ({
      a: rnd() < 0.1 ? null : Math.round(rnd() * 100000) / 100,
      b: rnd() < 0.2 ? null : Math.floor(rnd() * 500),
      c: rnd() < 0.05 ? null : `k${Math.floor(rnd() * 300)}`,
      d: `2024-01-${String(1 + (i % 28)).padStart(2, '0')}`,
    }));
    const body = 'a,b,c,d\n' + rows.map((r) => [r.a ?? '', r.b ?? '', r.c ?? '', r.d].join(',')).join('\n') + '\n';
    const src = await ctx.file('stats.csv', body);
    const r = await ctx.engine.ingest({ sourceFile: src, contentType: 'text/csv', key: 'stats.parquet' });
    expect(r.rowCount).toBe(2000);
    const col = (n: string) => r.columns.find((c) => c.name === n)!;
    for (const name of ['a', 'b'] as const) {
      const vs = rows.map((x) => x[name]).filter((v): v is number => v !== null);
      expect(col(name).stats.nullCount).toBe(2000 - vs.length);
      expect(col(name).stats.min).toBe(Math.min(...vs));
      expect(col(name).stats.max).toBe(Math.max(...vs));
      expect(col(name).stats.mean).toBeCloseTo(vs.reduce((s, v) => s + v, 0) / vs.length, 6);
      const distinct = new Set(vs).size;
      expect(col(name).stats.distinctCount).toBe(distinct); // exact below 200k rows
    }
    const cs = rows.map((x) => x.c).filter((v) => v !== null);
    expect(col('c').stats.nullCount).toBe(2000 - cs.length);
    expect(col('c').stats.distinctCount).toBe(new Set(cs).size);
    expect(col('d').type).toBe('DATE');
    expect(col('d').stats).toMatchObject({ nullCount: 0, min: '2024-01-01', max: '2024-01-28' });
  });

  it.each([
    ['a text column of few values', 'cat', 7],
    ['a floating-point column of few values (which HyperLogLog skips)', 'rating', 9],
    ['an integer column of few values', 'code', 97],
  ])('counts %s exactly past 200,000 rows', async (_label, name, distinct) => {
    expect((await bigColumns()).find((c) => c.name === name)!.stats.distinctCount).toBe(distinct);
  });

  it('estimates columns of many values past 200,000 rows, and leaves a floating-point one uncounted', async () => {
    const cols = await bigColumns();
    const count = (n: string) => cols.find((c) => c.name === n)!.stats.distinctCount;
    expect(count('id')).toBeGreaterThan(BIG_ROWS * 0.9);
    expect(count('id')).toBeLessThan(BIG_ROWS * 1.1);
    expect(count('name')).toBeGreaterThan(BIG_ROWS * 0.9);
    expect(count('x')).toBeUndefined();
  });
});
