import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BoxList, writePackedRtree } from '../src/export-rtree';
import { loadSqlite } from '../src/formats/sqlite';
import { SqliteWorker } from '../src/sqlite-worker';
import { hasGdal } from './gdal-files';
import { collect, setup, type Ctx } from './helpers';

/**
 * The GeoPackage download's R-tree, bulk loaded into SQLite's shadow tables (#48): SQLite's own check finds it
 * sound, window queries answer what the same boxes inserted one by one by SQLite answer (the oracle), SQLite can
 * go on inserting and deleting, and GDAL's spatial filter over a downloaded GeoPackage of points finds the points
 * in the window.
 */
let ctx: Ctx;
beforeAll(async () => {
  ctx = await setup();
});
afterAll(() => ctx.cleanup());

const { DatabaseSync } = await loadSqlite();
type Db = InstanceType<typeof DatabaseSync>;

/** Boxes of varied sizes on both sides of 0° (points, thin lines, wide areas), deterministic. */
function boxes(n: number): [number, number, number, number][] {
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  return Array.from({ length: n }, (_, i) => {
    const [x, y] = [rand() * 360 - 180, rand() * 170 - 85];
    const [w, h] = i % 3 === 0 ? [0, 0] : i % 3 === 1 ? [rand() * 0.01, 0] : [rand() * 5, rand() * 5];
    return [x, y, x + w, y + h];
  });
}

const ids = (db: Db, sql: string) => (db.prepare(sql).all() as { id: number }[]).map((r) => Number(r.id)).sort((a, b) => a - b);
const WINDOWS = [
  [-10, -10, 10, 10],
  [100, 20, 180, 85],
  [-180, -85, 180, 85],
  [0.5, 0.5, 0.5001, 0.5001],
];

describe('a packed R-tree', () => {
  it.each([0, 1, 51, 52, 3000])('of %i boxes: sound, and answers window queries as SQLite’s own inserts do', async (n) => {
    const file = path.join(ctx.dir, `packed-${n}.sqlite`);
    const writer = new SqliteWorker(file);
    const list = new BoxList();
    const all = boxes(n);
    all.forEach((b, i) => list.push(i + 1, ...b));
    await writePackedRtree(writer, 'packed', list);
    await writer.close();
    const db = new DatabaseSync(file);
    db.exec('CREATE VIRTUAL TABLE oracle USING rtree(id, minx, maxx, miny, maxy)');
    const add = db.prepare('INSERT INTO oracle VALUES (?, ?, ?, ?, ?)');
    db.exec('BEGIN'); // one transaction: each insert on its own waited for the disk (3,000 boxes: 46 s)
    all.forEach(([x0, y0, x1, y1], i) => add.run(i + 1, x0, x1, y0, y1));
    db.exec('COMMIT');
    expect((db.prepare("SELECT rtreecheck('packed') AS c").get() as { c: string }).c).toBe('ok');
    expect(ids(db, 'SELECT id FROM packed')).toEqual(ids(db, 'SELECT id FROM oracle'));
    for (const [x0, y0, x1, y1] of WINDOWS) {
      const where = `WHERE maxx >= ${x0} AND minx <= ${x1} AND maxy >= ${y0} AND miny <= ${y1}`;
      expect(ids(db, `SELECT id FROM packed ${where}`)).toEqual(ids(db, `SELECT id FROM oracle ${where}`));
    }
    // Still an R-tree SQLite maintains: a later insert and deletes (as an editor saving the file) keep it sound.
    db.exec('INSERT INTO packed VALUES (1000001, 1, 2, 3, 4); DELETE FROM packed WHERE id % 2 = 0');
    expect((db.prepare("SELECT rtreecheck('packed') AS c").get() as { c: string }).c).toBe('ok');
    expect(ids(db, 'SELECT id FROM packed WHERE minx <= 1.5 AND maxx >= 1.5 AND miny <= 3.5 AND maxy >= 3.5')).toContain(1000001);
    db.close();
  });

  it.skipIf(!hasGdal)('in a GeoPackage download of 2,000 points: GDAL’s spatial filter finds the points in a window', async () => {
    const rows = Array.from({ length: 2000 }, (_, i) => `${i},${(i * 7919) % 360 - 180 + 0.5},${(i * 104729) % 170 - 85 + 0.25}`);
    const csv = await ctx.file('points.csv', `id,lng,lat\n${rows.join('\n')}\n`);
    const stored = path.join(ctx.dir, 'points.parquet');
    await ctx.engine.query(`COPY (SELECT * FROM read_csv('${csv}')) TO '${stored}' (FORMAT parquet)`);
    const gpkg = path.join(ctx.dir, 'points.gpkg');
    const opts = { location: { latitude: 'lat', longitude: 'lng' }, shape: { columns: ['id', 'lng', 'lat'], rowCount: 2000 } };
    await writeFile(gpkg, await collect(ctx.engine.exportFileStream(stored, 'gpkg', opts)));
    const inWindow = rows.map((r) => r.split(',').map(Number)).filter(([, x, y]) => x! >= -20 && x! <= 40 && y! >= -10 && y! <= 30).length;
    expect(inWindow).toBeGreaterThan(10);
    const info = execFileSync('ogrinfo', ['-ro', '-so', '-spat', '-20', '-10', '40', '30', gpkg, 'features'], { encoding: 'utf8' });
    expect(info).toMatch(new RegExp(`Feature Count: ${inWindow}\\b`));
    const sqlite = new DatabaseSync(gpkg, { readOnly: true });
    expect((sqlite.prepare("SELECT rtreecheck('rtree_features_geom') AS c").get() as { c: string }).c).toBe('ok');
    sqlite.close();
  });
});
