import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { TextBytes, integerValues, vectorValues } from '../src/export-vectors';

/**
 * vectorValues and TextBytes read vectors through the node-api's own fields (#48, the Shapefile download's speed): the
 * same values and nulls as toArray, every row of a chunk past the 64-bit mask words, the typed array itself when a
 * chunk has no null, text as its UTF-8 bytes cut as Buffer#write cuts — so a node-api upgrade that moves those fields
 * fails here, not in a download.
 */
describe('vectorValues', () => {
  it.each([
    ['DOUBLE without nulls', 'CAST(i AS DOUBLE) / 3', true],
    ['DOUBLE with nulls', 'CASE WHEN i % 3 = 0 OR i = 2047 THEN NULL ELSE i * 0.5 END', false],
    ['BIGINT', 'CASE WHEN i % 5 = 0 THEN NULL ELSE i END', false],
    ['VARCHAR', "CASE WHEN i % 7 = 0 THEN NULL ELSE 'v' || i END", false],
  ])('%s: the values toArray answers', async (_, sql, typed) => {
    const db = await DuckDBInstance.create(':memory:');
    const connection = await db.connect();
    try {
      const result = await connection.stream(`SELECT ${sql} AS v FROM range(5000) t(i)`);
      let rows = 0;
      for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount; chunk = await result.fetchChunk()) {
        const vector = chunk.getColumnVector(0);
        const values = vectorValues(vector);
        expect(Array.from(values)).toEqual(vector.toArray());
        expect(values instanceof Float64Array).toBe(typed);
        rows += chunk.rowCount;
      }
      expect(rows).toBe(5000);
    } finally {
      connection.closeSync();
      db.closeSync();
    }
  });
});

describe('integerValues', () => {
  it('BIGINTs as the numbers they are, bigints past 2^53, nulls kept', async () => {
    const db = await DuckDBInstance.create(':memory:');
    const connection = await db.connect();
    try {
      const edges = ['0', '-1', '1', '4294967295', '4294967296', '-4294967296', '9007199254740991', '-9007199254740991', '9007199254740992', '-9007199254740992', '-9223372036854775808', '9223372036854775807', 'NULL'];
      const result = await connection.stream(`SELECT unnest([${edges.join(', ')}]::BIGINT[]) AS v UNION ALL SELECT CASE WHEN i % 9 = 0 THEN NULL ELSE (i - 2500) * 12345678901 END FROM range(5000) t(i)`);
      let rows = 0;
      for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount; chunk = await result.fetchChunk()) {
        const vector = chunk.getColumnVector(0);
        const expected = (vector.toArray() as (bigint | null)[]).map((v) => (v !== null && v >= -(2n ** 53n) + 1n && v <= 2n ** 53n - 1n ? Number(v) : v));
        expect(Array.from(integerValues(vector))).toEqual(expected);
        rows += chunk.rowCount;
      }
      expect(rows).toBe(5013);
    } finally {
      connection.closeSync();
      db.closeSync();
    }
  });
});

describe('TextBytes', () => {
  const values = ['', 'short', 'exactly12byt', 'thirteen byte', 'é', 'ééééééé', 'a€b', 'a much longer text, kept behind a pointer by DuckDB', null];

  it.each([3, 6, 12, 40, 254])('each value copied as its UTF-8 bytes, cut to %i bytes never inside a character', async (max) => {
    const db = await DuckDBInstance.create(':memory:');
    const connection = await db.connect();
    try {
      const list = values.map((v) => (v === null ? 'NULL' : `'${v}'`)).join(', ');
      const result = await connection.stream(`SELECT unnest([${list}]) AS v`);
      const chunk = (await result.fetchChunk())!;
      const text = TextBytes.of(chunk.getColumnVector(0))!;
      expect(text).not.toBeNull();
      values.forEach((v, r) => {
        const out = Buffer.alloc(max + 2, 0x20);
        const length = text.copy(r, out, 1, max);
        if (v === null) return expect([length, out.every((b) => b === 0x20)]).toEqual([-1, true]);
        const whole = Buffer.from(v, 'utf8');
        // The expected cut: Buffer#write writes whole characters only.
        const cut = Buffer.alloc(max, 0x20);
        cut.write(v, 0, max, 'utf8');
        expect([length, out.subarray(1, 1 + max).toString('utf8'), out[0], out[max + 1]]).toEqual([whole.length, cut.toString('utf8'), 0x20, 0x20]);
      });
    } finally {
      connection.closeSync();
      db.closeSync();
    }
  });
});
