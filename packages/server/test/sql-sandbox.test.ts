import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notFound } from '@studio/schema';
import { SqlSandbox } from '../src/services/sql-sandbox';

/**
 * The SQL sandbox on its own (services/sql-sandbox/index.ts; the `sql-sandbox` mutation module): what a
 * query compiled once answers another caller, the messages users see, the parameters it reports, and a
 * run cancelled or finished. The attacks through every route are security-sql.test.ts's.
 */
let dataDir: string;
let sandbox: SqlSandbox;
/** Two users' datasets that both call their table `places`, with different rows. */
let aliceFile: string;
let bobFile: string;

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'sandbox-'));
  aliceFile = path.join(dataDir, 'datasets', 'alice', 'v1.parquet');
  bobFile = path.join(dataDir, 'datasets', 'bob', 'v1.parquet');
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  for (const [file, rows] of [[aliceFile, `('Ferry Building', 1), ('Coit Tower', 2)`], [bobFile, `('Alcatraz', 3)`]] as const) {
    await fs.mkdir(path.dirname(file), { recursive: true });
    await c.run(`COPY (SELECT * FROM (VALUES ${rows}) t(name, n)) TO '${file}' (FORMAT parquet)`);
  }
  c.closeSync();
  db.closeSync();
  sandbox = new SqlSandbox({ dir: path.join(dataDir, 'sandbox'), memoryLimit: '256MB', maxInstances: 2, dataDir });
});
afterAll(async () => {
  await sandbox?.close();
  await fs.rm(dataDir, { recursive: true, force: true });
});

const only = (files: Record<string, string>) => async (name: string) => {
  const file = files[name];
  if (!file) throw notFound(`Dataset not found: ${name}`);
  return file;
};

describe('a query compiled once', () => {
  it("reads each caller's own files, never the files of the caller who compiled it first", async () => {
    const query = 'SELECT name FROM places ORDER BY n';
    const alice = await sandbox.compile(query, only({ places: aliceFile }));
    const bob = await sandbox.compile(query, only({ places: bobFile }));
    expect([...bob.files.values()]).toEqual([bobFile]);
    expect(bob.sql).toContain(bobFile);
    expect(bob.sql).not.toContain(aliceFile);
    expect(await sandbox.readRows(bob)).toEqual([['Alcatraz']]);
    // Alice again, from the cache: her files, not Bob's.
    const again = await sandbox.compile(query, only({ places: aliceFile }));
    expect(again.sql).toBe(alice.sql);
    expect(await sandbox.readRows(again)).toEqual([['Ferry Building'], ['Coit Tower']]);
  });

  it('is refused to a caller who may not read what it names, though it was compiled before', async () => {
    const query = 'SELECT count(*) FROM places';
    await sandbox.compile(query, only({ places: aliceFile }));
    await expect(sandbox.compile(query, only({}))).rejects.toMatchObject({ status: 404, message: 'Dataset not found: places' });
  });

  it('keeps its rewrites for many callers, and still answers each right once more than eight file sets have asked', async () => {
    const query = 'SELECT count(*) AS n FROM places';
    const files = [aliceFile, bobFile];
    for (let i = 0; i < 10; i++) {
      const link = path.join(dataDir, 'datasets', `copy-${i}.parquet`);
      await fs.copyFile(files[i % 2]!, link);
      const q = await sandbox.compile(query, only({ places: link }));
      expect([...q.files.values()]).toEqual([link]);
      expect(await sandbox.readRows(q)).toEqual([[i % 2 === 0 ? 2n : 1n]]);
    }
  });
});

describe('the rewrites it keeps', () => {
  /** Counts the parses (a round trip to a worker process's DuckDB) the sandbox makes from now on. */
  const countParses = () => {
    const pool = (sandbox as unknown as { pool: { run: (request: { op: string }, opts: unknown) => Promise<unknown> } }).pool;
    const run = pool.run.bind(pool);
    const counter = { parses: 0, restore: () => (pool.run = run) };
    pool.run = (request, opts) => {
      if (request.op === 'compile') counter.parses++;
      return run(request, opts);
    };
    return counter;
  };

  it.each([
    ['the same query for the same files is parsed once', async (c: (q: string, f: string) => Promise<unknown>) => {
      await c('SELECT 1 AS kept FROM places', aliceFile);
      await c('SELECT 1 AS kept FROM places', aliceFile);
      await c('SELECT 1 AS kept FROM places', aliceFile);
    }, 1],
    ['each new file set is parsed once, and its rewrite kept beside the others', async (c: (q: string, f: string) => Promise<unknown>) => {
      for (const f of [aliceFile, bobFile, aliceFile, bobFile]) await c('SELECT 2 AS sets FROM places', f);
    }, 2],
    ['past eight file sets of one query, the rewrites kept for it start again', async (c: (q: string, f: string) => Promise<unknown>) => {
      const sets = await copies('sets', 9);
      for (const f of sets) await c('SELECT 3 AS many FROM places', f);
      await c('SELECT 3 AS many FROM places', sets[0]!);
    }, 10],
    ['past 500 queries, the least recently used is parsed again; one used since is kept', async (c: (q: string, f: string) => Promise<unknown>) => {
      await c('SELECT 4 AS first FROM places', aliceFile);
      await c('SELECT 4 AS second FROM places', aliceFile);
      // Used again: now the second is the least recently used.
      await c('SELECT 4 AS first FROM places', aliceFile);
      for (let i = 0; i < 499; i++) await c(`SELECT ${i} AS filler FROM places`, aliceFile);
      await c('SELECT 4 AS first FROM places', aliceFile);
      await c('SELECT 4 AS second FROM places', aliceFile);
    }, 502],
  ])('%s', async (_label, asks, parses) => {
    const counter = countParses();
    try {
      await asks((query, file) => sandbox.compile(query, only({ places: file })));
      expect(counter.parses).toBe(parses);
    } finally {
      counter.restore();
    }
  });
});

/** `n` copies of Alice's file under new names: as many file sets. */
async function copies(prefix: string, n: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const file = path.join(dataDir, 'datasets', `${prefix}-${i}.parquet`);
    await fs.copyFile(aliceFile, file);
    out.push(file);
  }
  return out;
}

describe('what users are told', () => {
  it.each([
    ['a file named back by its table', (f: string) => `Binder Error: column "x" not found in ${f}`, 'Binder Error: column "x" not found in places'],
    ['the quoted statement after LINE 12 dropped', () => `Binder Error: x\nLINE 12: FROM read_parquet('/secret/x.parquet')`, 'Binder Error: x'],
    ['the quoted statement after LINE dropped', () => `Parser Error: syntax error at or near "FORM"\n\nLINE 1: SELECT * FORM read_parquet('/secret/x.parquet')`, 'Parser Error: syntax error at or near "FORM"'],
    ['another path in the data folder hidden', () => 'IO Error: cannot open <DATA>/other/file.parquet', 'IO Error: cannot open <path>'],
    ['a path outside it hidden', () => "IO Error: No files found that match the pattern '/etc/passwd'", "IO Error: No files found that match the pattern '<path>'"],
    ['a message without paths kept', () => 'Conversion Error: Could not convert string to INT32', 'Conversion Error: Could not convert string to INT32'],
  ])('%s', (_label, message, told) => {
    const text = message(aliceFile).replace('<DATA>', dataDir);
    expect(sandbox.scrub(text, new Map([['places', aliceFile]]))).toBe(told);
  });

  it('answers a query that fails with 422 and the table name, not its file', async () => {
    const unparsable = await sandbox.compile('SELEC name FROM places', only({ places: aliceFile })).catch((e: unknown) => e);
    expect(unparsable).toMatchObject({ status: 422 });
    expect((unparsable as Error).message).toMatch(/^Could not parse query: /);
    for (const [query, told] of [['SELECT no_such_column FROM places', /^The query failed: Binder Error: .*no_such_column/], ['SELECT CAST(name AS INTEGER) FROM places', /^The query failed: Conversion Error/]] as const) {
      const e = await sandbox.readRows(await sandbox.compile(query, only({ places: aliceFile }))).catch((err: unknown) => err);
      expect(e).toMatchObject({ status: 422 });
      expect((e as Error).message).toMatch(told);
      expect((e as Error).message).not.toContain(dataDir);
    }
  });
});

describe('parameters and runs', () => {
  it('names the $parameters a query binds once each, in the order of first use, and binds them', async () => {
    const q = await sandbox.compile('SELECT name FROM places WHERE n >= $low AND n <= $high OR n = $low', only({ places: aliceFile }));
    expect(await sandbox.parameterNames(q)).toEqual(['low', 'high']);
    expect(await sandbox.readRows(q, { low: 2, high: 2 })).toEqual([['Coit Tower']]);
  });

  it('writes a result to Parquet and answers its row count; a cancelled run writes nothing and says so', async () => {
    const q = await sandbox.compile('SELECT * FROM places', only({ places: aliceFile }));
    const out = path.join(dataDir, 'out', 'result.parquet');
    await fs.mkdir(path.dirname(out), { recursive: true });
    expect(await sandbox.copyToParquet(q, {}, out)).toBe(2);
    expect((await fs.stat(out)).size).toBeGreaterThan(0);
    const bound = await sandbox.compile('SELECT * FROM places WHERE n >= $low', only({ places: aliceFile }));
    expect(await sandbox.copyToParquet(bound, { low: 2 }, path.join(dataDir, 'out', 'bound.parquet'))).toBe(1);
    const cancelled = path.join(dataDir, 'out', 'cancelled.parquet');
    const stop = new AbortController();
    stop.abort();
    await expect(sandbox.copyToParquet(q, {}, cancelled, { signal: stop.signal })).rejects.toMatchObject({ status: 499, message: 'The query was cancelled' });
    await expect(fs.stat(cancelled)).rejects.toThrow();
    const failing = await sandbox.compile('SELECT CAST(name AS INTEGER) FROM places', only({ places: aliceFile }));
    await expect(sandbox.copyToParquet(failing, {}, cancelled)).rejects.toThrow(/^The query failed: Conversion Error/);
  });

  it('stops a long run when its signal fires while it runs', async () => {
    const q = await sandbox.compile('WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r WHERE n < 10000000000) SELECT count(*) FROM r, places', only({ places: aliceFile }));
    const stop = new AbortController();
    const started = Date.now();
    setTimeout(() => stop.abort(), 300);
    await expect(sandbox.copyToParquet(q, {}, path.join(dataDir, 'out', 'long.parquet'), { signal: stop.signal })).rejects.toThrow(/interrupt/i);
    // Stopped at the signal, not after ten billion steps (hours).
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});
