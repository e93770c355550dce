import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSqlite } from '../src/formats/sqlite';
import { SqliteWorker } from '../src/sqlite-worker';

/**
 * The GeoPackage writer's SQLite thread (#48): rows sent as columns land as node:sqlite would bind them one by one —
 * nulls in number and blob columns, booleans as 1/0, integers as integers, a bigint past 2^53 exact — across
 * batches that do not fill a statement; a failing statement fails the writer with SQLite's message.
 */
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'sqlite-worker-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const { DatabaseSync } = await loadSqlite();

describe('SqliteWorker', () => {
  it('writes columns of every kind, in batches of any size, as SQLite reads them back', async () => {
    const file = path.join(dir, 'rows.sqlite');
    const db = new SqliteWorker(file);
    db.exec('CREATE TABLE t (n REAL, i INTEGER, k, b BLOB, v)');
    const head = 'INSERT INTO t (n, i, k, b, v)';
    // 250 rows in batches of 7 and 243 (a statement takes 100): every row i, its values made from i.
    for (const [from, to] of [[0, 7], [7, 250]] as const) {
      const rows = to - from;
      const n = new Float64Array(rows).map((_, r) => (from + r) / 4);
      const nulls = new Uint8Array(rows).map((_, r) => ((from + r) % 5 === 0 ? 1 : 0));
      const k = new Float64Array(rows).map((_, r) => from + r);
      const lengths = new Int32Array(rows).map((_, r) => ((from + r) % 3 === 0 ? -1 : (from + r) % 4));
      const bytes = new Uint8Array(Array.from(lengths).flatMap((len, r) => new Array(Math.max(0, len)).fill(from + r)));
      const v = Array.from({ length: rows }, (_, r) => [true, false, 'text', 2n ** 60n + BigInt(from + r), null][(from + r) % 5]);
      db.insert(head, rows, [{ f64: n, nulls }, { values: Array.from(k) }, { f64: k.slice(), integer: true }, { bytes, lengths }, { values: v }]);
      await db.drain(0);
    }
    expect(await db.get<{ c: number }>('SELECT count(*) AS c FROM t')).toEqual({ c: 250 });
    await db.close();
    const read = new DatabaseSync(file, { readOnly: true });
    const select = read.prepare('SELECT n, typeof(i) AS ti, k, typeof(k) AS tk, b, v FROM t ORDER BY rowid');
    select.setReadBigInts(true); // the bigint past 2^53 read back exactly
    const got = select.all();
    read.close();
    expect(got).toHaveLength(250);
    got.forEach((row, i) => {
      expect(row.n).toBe(i % 5 === 0 ? null : i / 4);
      expect([row.ti, row.k, row.tk]).toEqual(['integer', BigInt(i), 'integer']);
      expect(row.b === null ? null : Array.from(row.b as Uint8Array)).toEqual(i % 3 === 0 ? null : new Array(i % 4).fill(i & 0xff));
      expect(row.v).toEqual([1n, 0n, 'text', 2n ** 60n + BigInt(i), null][i % 5]);
    });
  });

  it('fails with SQLite’s message when a statement fails, and every call after it', async () => {
    const db = new SqliteWorker(path.join(dir, 'bad.sqlite'));
    db.exec('CREATE TABLE t (a)');
    db.insert('INSERT INTO missing (a)', 1, [{ values: [1] }]);
    await expect(db.drain(0)).rejects.toThrow(/no such table: missing/);
    expect(() => db.exec('SELECT 1')).toThrow(/no such table: missing/);
    await expect(db.close()).rejects.toThrow(/no such table: missing/);
  });
});
