import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertSupportedContentType } from '../src';
import { ROWS, setup, toCsv, type Ctx } from './helpers';

let ctx: Ctx;
beforeAll(async () => {
  ctx = await setup();
  // A parquet source made by DuckDB itself.
  await ctx.engine.query(
    `COPY (SELECT * FROM (VALUES (1, 'alpha', 1.5, 40.7, -73.9), (2, 'beta', 2.25, 51.5, -0.12), (3, 'gamma', NULL, 35.6, 139.7)) t(id, name, price, lat, lng)) TO '${path.join(ctx.dir, 'src.parquet')}' (FORMAT parquet)`,
  );
});
afterAll(() => ctx.cleanup());

const geojson = JSON.stringify({
  type: 'FeatureCollection',
  features: ROWS.map((r) => ({
    type: 'Feature',
    properties: { id: r.id, name: r.name, price: r.price },
    geometry: { type: 'Point', coordinates: [r.lng, r.lat] },
  })),
});

const bodies: Record<string, () => Promise<Buffer>> = {
  csv: async () => Buffer.from(toCsv(',')),
  tsv: async () => Buffer.from(toCsv('\t')),
  json: async () => Buffer.from(JSON.stringify(ROWS)),
  ndjson: async () => Buffer.from(ROWS.map((r) => JSON.stringify(r)).join('\n') + '\n'),
  geojson: async () => Buffer.from(geojson),
  parquet: async () => readFile(path.join(ctx.dir, 'src.parquet')),
};

describe('ingest formats', () => {
  it.each([
    ['csv', 'text/csv', false],
    ['tsv', 'text/tab-separated-values', false],
    ['json', 'application/json', false],
    ['ndjson', 'application/x-ndjson', false],
    ['ndjson', 'application/json', false],
    ['geojson', 'application/geo+json', false],
    ['geojson', 'application/json', false],
    ['parquet', 'application/vnd.apache.parquet', false],
    ['parquet', 'application/x-parquet', false],
    ['parquet', 'application/octet-stream', false],
    ['csv', 'text/csv; charset=utf-8', true],
    ['json', 'application/json', true],
    ['geojson', 'application/geo+json', true],
    ['parquet', 'application/octet-stream', true],
  ])('%s as %s (gzip %s)', async (kind, contentType, gzip) => {
    const src = await ctx.file(`${kind}-${Math.random()}`, await bodies[kind]!(), gzip);
    const key = `ds/${kind}-${gzip}-${Math.random().toString(36).slice(2)}.parquet`;
    const progress: number[] = [];
    const r = await ctx.engine.ingest({
      sourceFile: src,
      contentType,
      contentEncoding: gzip ? 'gzip' : undefined,
      key,
      onProgress: (f) => progress.push(f),
    });
    expect(r.rowCount).toBe(3);
    expect(r.byteSize).toBeGreaterThan(0);
    expect(await ctx.engine.store.exists(key)).toBe(true);
    expect(progress.at(-1)).toBe(1);
    expect([...progress].sort((a, b) => a - b)).toEqual(progress);
    const byName = Object.fromEntries(r.columns.map((c) => [c.name, c]));
    expect(byName.name!.type).toBe('STRING');
    expect(byName.price!.stats.nullCount).toBe(1);
    expect(byName.price!.stats.min).toBe(1.5);
    expect(byName.price!.stats.max).toBe(2.25);
    const rows = await ctx.engine.preview(key, { limit: 10 });
    expect(rows.map((x) => x.name)).toEqual(['alpha', 'beta', 'gamma']);
    if (kind === 'geojson') {
      expect(r.detected).toMatchObject({ latitude: 'latitude', longitude: 'longitude', geometry: '_geojson' });
      expect(byName._geojson!.type).toBe('GEOMETRY');
      expect(rows[0]).toMatchObject({ latitude: 40.7, longitude: -73.9 });
      expect(JSON.parse(rows[0]!._geojson as string)).toEqual({ type: 'Point', coordinates: [-73.9, 40.7] });
    } else {
      expect(r.detected).toMatchObject({ latitude: 'lat', longitude: 'lng' });
      expect(byName.lat!.role).toBe('latitude');
    }
  });
});

describe('ingest errors', () => {
  it.each(['text/html', 'application/pdf', 'image/png'])('refuses %s', async (ct) => {
    const src = await ctx.file('x.bin', 'hello');
    await expect(ctx.engine.ingest({ sourceFile: src, contentType: ct, key: 'x.parquet' })).rejects.toMatchObject({
      status: 422,
      message: 'Unsupported content type',
    });
  });

  it.each([
    ['text/csv', true],
    ['Application/JSON; charset=utf-8', true],
    ['application/octet-stream', true],
    ['text/plain', false],
    ['', false],
  ])('assertSupportedContentType(%j) passes: %s', (ct, ok) => {
    const call = () => assertSupportedContentType(ct);
    if (ok) expect(call).not.toThrow();
    else expect(call).toThrow('Unsupported content type');
  });

  it('refuses octet-stream without parquet magic', async () => {
    const src = await ctx.file('y.bin', 'a,b\n1,2\n');
    await expect(
      ctx.engine.ingest({ sourceFile: src, contentType: 'application/octet-stream', key: 'y.parquet' }),
    ).rejects.toMatchObject({ message: 'Unsupported content type' });
  });

  it('names line and column of a bad CSV value', async () => {
    // Past the sniffer's 20480-row sample, so the column is typed DOUBLE and the bad value fails the cast.
    let body = 'id,name,price\n';
    for (let i = 0; i < 25000; i++) body += `${i},n${i},${i * 1.5}\n`;
    body += '25000,x,abc\n';
    const src = await ctx.file('bad.csv', body);
    const err = await ctx.engine
      .ingest({ sourceFile: src, contentType: 'text/csv', key: 'bad/out.parquet' })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({
      status: 422,
      message: "Could not read CSV at line 25002, column 'price': expected DOUBLE but found 'abc'",
    });
    expect(await ctx.engine.store.exists('bad/out.parquet')).toBe(false);
    expect(readdirSync(ctx.engine.tmpDir).filter((f) => f.startsWith('ingest-'))).toEqual([]);
  });

  it('reports a truncated gzip and leaves nothing behind', async () => {
    const full = await ctx.file('full.csv.gz', toCsv(',').repeat(200), true);
    const bytes = await readFile(full);
    const src = await ctx.file('trunc.csv.gz', bytes.subarray(0, Math.floor(bytes.length / 2)));
    await expect(
      ctx.engine.ingest({ sourceFile: src, contentType: 'text/csv', contentEncoding: 'gzip', key: 'trunc/x.parquet' }),
    ).rejects.toMatchObject({ status: 422, message: 'Could not decompress the gzip body: the file is truncated' });
    expect(await ctx.engine.store.exists('trunc/x.parquet')).toBe(false);
    expect(existsSync(path.join(ctx.engine.tmpDir))).toBe(true);
    expect(readdirSync(ctx.engine.tmpDir).filter((f) => f.startsWith('ingest-'))).toEqual([]);
  });

  it.each([
    ['JSON lines with a broken record', 'application/x-ndjson', '{"a": 1}\n{"a": nope}\n'],
    ['a JSON array cut short', 'application/json', '[{"a": 1}, {"a": '],
    ['a CSV with a column too many', 'text/csv', 'a,b\n1,2\n3,4,5\n'],
  ])('names no server path in the error of %s (DuckDB quotes the SQL it ran, the path inside)', async (_label, contentType, body) => {
    const src = await ctx.file(`paths-${"long-upload-name-".repeat(6)}${Math.random().toString(36).slice(2)}`, body);
    const err = (await ctx.engine.ingest({ sourceFile: src, contentType, key: 'p/x.parquet' }).catch((e: unknown) => e)) as { status: number; message: string; details?: string };
    expect(err.status).toBe(422);
    const text = `${err.message}\n${err.details ?? ''}`;
    expect(text).not.toContain(ctx.engine.tmpDir);
    expect(text).not.toMatch(/\/[\w.-]+\/[\w.-]+\//);
  });

  it('reports malformed JSON', async () => {
    const src = await ctx.file('bad.json', '[{"a": 1}, {"a": ');
    await expect(
      ctx.engine.ingest({ sourceFile: src, contentType: 'application/json', key: 'j/x.parquet' }),
    ).rejects.toMatchObject({ status: 422, message: expect.stringMatching(/^Could not read JSON/) });
  });
});

describe('CSV row shape errors', () => {
  it('names the line with too many columns', async () => {
    let body = 'id,name,price\n';
    for (let i = 0; i < 25000; i++) body += `${i},n${i},${i}\n`;
    body += '25000,x,1,extra\n';
    const src = await ctx.file('cols.csv', body);
    const err = await ctx.engine.ingest({ sourceFile: src, contentType: 'text/csv', key: 'cols.parquet' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 422, message: 'Could not read CSV at line 25002: expected 3 columns but found 4' });
  });
});

describe('ingest edge cases', () => {
  it('header-only CSV gives zero rows with its columns', async () => {
    const src = await ctx.file('empty.csv', 'a,b\n');
    const r = await ctx.engine.ingest({ sourceFile: src, contentType: 'text/csv', key: 'edge/empty.parquet' });
    expect(r.rowCount).toBe(0);
    expect(r.columns.map((c) => c.name)).toEqual(['a', 'b']);
    expect(r.columns[0]!.stats.nullCount).toBe(0);
  });

  it('an all-null column has nullCount = rowCount and no min/max', async () => {
    const src = await ctx.file('nulls.csv', 'a,b\n1,\n2,\n');
    const r = await ctx.engine.ingest({ sourceFile: src, contentType: 'text/csv', key: 'edge/nulls.parquet' });
    const b = r.columns.find((c) => c.name === 'b')!;
    expect(b.stats.nullCount).toBe(2);
    expect(b.stats.min).toBeUndefined();
  });

  it('a zero-byte file is bad input', async () => {
    const src = await ctx.file('zero.csv', '');
    await expect(
      ctx.engine.ingest({ sourceFile: src, contentType: 'text/csv', key: 'edge/zero.parquet' }),
    ).rejects.toMatchObject({ status: 422, message: 'The file is empty' });
    expect(await ctx.engine.store.exists('edge/zero.parquet')).toBe(false);
  });

  it('GeoJSON that is not a FeatureCollection is bad input', async () => {
    const src = await ctx.file('nofc.geojson', JSON.stringify({ type: 'Point', coordinates: [1, 2] }));
    await expect(
      ctx.engine.ingest({ sourceFile: src, contentType: 'application/geo+json', key: 'edge/nofc.parquet' }),
    ).rejects.toMatchObject({ status: 422, message: expect.stringMatching(/FeatureCollection/) });
  });
});

describe('GeoJSON details', () => {
  it('keeps properties named like the derived columns, and mixed geometry types', async () => {
    const fc = {
      type: 'FeatureCollection',
      features: [
        { type: 'Feature', properties: { latitude: 1, longitude: 2, name: 'p' }, geometry: { type: 'Point', coordinates: [2, 1] } },
        { type: 'Feature', properties: { latitude: 3, longitude: 4, name: 'q' }, geometry: { type: 'LineString', coordinates: [[0, 0], [1, 1]] } },
      ],
    };
    const src = await ctx.file('clash.geojson', JSON.stringify(fc));
    const r = await ctx.engine.ingest({ sourceFile: src, contentType: 'application/geo+json', key: 'geo/clash.parquet' });
    expect(r.columns.map((c) => c.name)).toEqual(['latitude', 'longitude', 'name', '_geojson']);
    const rows = await ctx.engine.preview('geo/clash.parquet');
    expect(JSON.parse(rows[1]!._geojson as string)).toEqual(fc.features[1]!.geometry);
    expect(r.detected).toMatchObject({ latitude: 'latitude', longitude: 'longitude', geometry: '_geojson' });
  });
});
