import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDBInstance } from '@duckdb/node-api';
import { LockedInstances } from '../src/services/sql-sandbox/locked-instances';

/**
 * The sandbox's second wall on its own (services/sql-sandbox/locked-instances.ts): instances that read
 * only the files they were opened for, write only their own folder, cannot load extensions or unlock
 * themselves, share the memory budget, and are pooled, evicted and cleaned up without breaking a query
 * that is still running.
 */
describe('LockedInstances', () => {
  let root: string;
  const files: string[] = [];
  const fresh = (opts: Partial<ConstructorParameters<typeof LockedInstances>[0]> = {}) =>
    new LockedInstances({ dir: path.join(root, `pool-${Math.random().toString(36).slice(2)}`), memoryLimit: '256MB', ...opts });
  const scalar = async (c: { runAndReadAll(sql: string): Promise<{ getRows(): unknown[][] }> }, sql: string) => (await c.runAndReadAll(sql)).getRows()[0]?.[0];

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'locked-'));
    const db = await DuckDBInstance.create(':memory:');
    const c = await db.connect();
    for (const n of [1, 2, 3]) {
      const file = path.join(root, `t${n}.parquet`);
      await c.run(`COPY (SELECT ${n} AS n) TO '${file}' (FORMAT parquet)`);
      files.push(file);
    }
    c.closeSync();
    db.closeSync();
  });
  afterAll(() => fs.rm(root, { recursive: true, force: true }));

  it.each([
    ['512MB', 4, '128MB'],
    ['1GB', 2, '512MB'],
    ['1 gib', 1, '1024MB'],
    ['64mb', 4, '32MB'],
    ['2048kb', 1, '32MB'],
    ['1TB', 1024, '1024MB'],
    ['536870912', 2, '256MB'],
    ['1.5GB', 3, '512MB'],
    ['1.25GB', 5, '256MB'],
    ['1048576kb', 1, '1024MB'],
    ['512MB', 0, '512MB'],
  ])('splits %s over %d instances as %s each (at least 32MB; at least one instance)', (memoryLimit, maxInstances, each) => {
    expect(fresh({ memoryLimit, maxInstances }).memoryPerInstance).toBe(each);
  });

  it.each(['lots', '12 parsecs', 'MB', '', 'about 512MB'])('refuses %j as a memory size', (memoryLimit) => {
    expect(() => fresh({ memoryLimit })).toThrow(`Not a memory size: ${memoryLimit}`);
  });

  it('reads the files it was opened for and refuses every other one', async () => {
    const pool = fresh();
    expect(Number(await pool.with([files[0]!], (c) => scalar(c, `SELECT n FROM read_parquet('${files[0]}')`)))).toBe(1);
    await expect(pool.with([files[0]!], (c) => scalar(c, `SELECT n FROM read_parquet('${files[1]}')`))).rejects.toThrow('file system operations are disabled by configuration');
    await expect(pool.with([], (c) => scalar(c, "SELECT * FROM read_csv('/etc/passwd')"))).rejects.toThrow('file system operations are disabled by configuration');
    await pool.close();
  });

  it('writes its own output file only, and removes it after the work', async () => {
    const pool = fresh();
    let out = '';
    await pool.with([files[0]!], async (c, o) => {
      out = o;
      await c.run(`COPY (SELECT 1 AS one) TO '${o}' (FORMAT parquet)`);
      expect(existsSync(o)).toBe(true);
    });
    expect(existsSync(out)).toBe(false);
    await expect(pool.with([files[0]!], (c) => c.run(`COPY (SELECT 1) TO '${path.join(root, 'escape.csv')}'`))).rejects.toThrow('file system operations are disabled by configuration');
    expect(existsSync(path.join(root, 'escape.csv'))).toBe(false);
    await pool.close();
  });

  it.each([
    ['turning external access back on', 'SET enable_external_access = true', 'Cannot change configuration option "enable_external_access" - the configuration has been locked'],
    ['widening the allowed paths', "SET allowed_paths = ['/etc/passwd']", 'Cannot change configuration option "allowed_paths" - the configuration has been locked'],
    ['installing an extension', 'INSTALL httpfs', 'file system operations are disabled by configuration'],
    ['loading an extension', 'LOAD httpfs', 'Loading external extensions is disabled through configuration'],
  ])('refuses %s', async (_label, sql, message) => {
    const pool = fresh();
    await expect(pool.with([files[0]!], (c) => c.run(sql))).rejects.toThrow(message);
    await pool.close();
  });

  it('opens one instance per set of files, whatever their order or repeats', async () => {
    const pool = fresh();
    await pool.with([files[0]!, files[1]!], (c) => scalar(c, 'SELECT 1'));
    await pool.with([files[1]!, files[0]!, files[1]!], (c) => scalar(c, 'SELECT 1'));
    expect(pool.size).toBe(1);
    await pool.with([files[1]!], (c) => scalar(c, 'SELECT 1'));
    expect(pool.size).toBe(2);
    await pool.close();
  });

  it('keeps the most recently used instances and removes the folder of one it lets go', async () => {
    const dir = path.join(root, 'lru');
    const pool = new LockedInstances({ dir, memoryLimit: '256MB', maxInstances: 2 });
    const folders: Record<string, string> = {};
    const use = (f: string) => pool.with([f], (c, out) => ((folders[f] = path.dirname(out)), scalar(c, `SELECT n FROM read_parquet('${f}')`)));
    await use(files[0]!);
    await use(files[1]!);
    await use(files[0]!); // t1 is now the most recent: t2 goes first
    expect((await fs.readdir(dir)).length).toBe(2);
    await use(files[2]!);
    expect(pool.size).toBe(2);
    await expect.poll(async () => (await fs.readdir(dir)).length).toBe(2);
    expect([existsSync(folders[files[0]!]!), existsSync(folders[files[1]!]!), existsSync(folders[files[2]!]!)]).toEqual([true, false, true]);
    // t1 survived the eviction (no reopen needed to read it); t2 was let go and opens again.
    expect(Number(await use(files[0]!))).toBe(1);
    expect(Number(await use(files[1]!))).toBe(2);
    await pool.close();
    expect(await fs.readdir(dir)).toEqual([]);
  });

  it.each([
    ['evicted', async (pool: LockedInstances) => void (await pool.with([files[1]!], (c) => scalar(c, 'SELECT 1')))],
    ['closed', (pool: LockedInstances) => pool.close()],
  ])('lets a query on an instance %s meanwhile finish (writing its output), then removes its folder', async (_label, meanwhile) => {
    const dir = path.join(root, `in-use-${_label}`);
    const pool = new LockedInstances({ dir, memoryLimit: '256MB', maxInstances: 1 });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let folder = '';
    const slow = pool.with([files[0]!], async (c, out) => {
      folder = path.dirname(out);
      await gate;
      await c.run(`COPY (SELECT n FROM read_parquet('${files[0]}')) TO '${out}' (FORMAT parquet)`);
      return scalar(c, `SELECT n FROM read_parquet('${out}')`);
    });
    await expect.poll(() => folder).not.toBe('');
    await meanwhile(pool); // t1's instance goes while it is in use
    expect(existsSync(folder)).toBe(true);
    release();
    expect(Number(await slow)).toBe(1);
    await expect.poll(() => existsSync(folder)).toBe(false);
    await pool.close();
    expect(pool.size).toBe(0);
  });

  it('gives each instance its share of memory, its own spill folder and no extension autoloading', async () => {
    const pool = fresh({ memoryLimit: '512MB', maxInstances: 4 });
    const settings = await pool.with([files[0]!], async (c, out) => ({
      memory: await scalar(c, "SELECT current_setting('memory_limit')"),
      spill: await scalar(c, "SELECT current_setting('temp_directory')"),
      folder: path.dirname(out),
      autoinstall: await scalar(c, "SELECT current_setting('autoinstall_known_extensions')"),
      autoload: await scalar(c, "SELECT current_setting('autoload_known_extensions')"),
    }));
    expect(settings).toEqual({ memory: '122.0 MiB', spill: path.join(settings.folder, 'spill'), folder: settings.folder, autoinstall: false, autoload: false });
    await pool.close();
  });

  it('keeps at most two idle connections per instance', async () => {
    const pool = fresh();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const held = [0, 1, 2, 3].map(() => pool.with([files[0]!], async (c) => (await gate, scalar(c, 'SELECT 1'))));
    release();
    await Promise.all(held);
    const entry = (pool as unknown as { open: Map<string, { idle: unknown[] }> }).open.get(files[0]!)!;
    expect(entry.idle.length).toBe(2);
    await pool.close();
  });

  it('does not reuse a connection whose work failed (it may hold an aborted transaction)', async () => {
    const pool = fresh();
    await expect(pool.with([files[0]!], async (c) => {
      await c.run('BEGIN TRANSACTION');
      throw new Error('the work failed mid-transaction');
    })).rejects.toThrow('the work failed mid-transaction');
    // A reused connection would still be inside that transaction: BEGIN would fail.
    await pool.with([files[0]!], (c) => c.run('BEGIN TRANSACTION; ROLLBACK'));
    await pool.close();
  });

  it('keeps a healthy connection for the next query on the same files', async () => {
    const pool = fresh();
    await pool.with([files[0]!], (c) => c.run('SET VARIABLE marker = 42'));
    expect(Number(await pool.with([files[0]!], (c) => scalar(c, "SELECT getvariable('marker')")))).toBe(42);
    await pool.close();
  });

  it('registers the functions before locking, and retries an instance whose start failed', async () => {
    let fail = true;
    const pool = fresh({
      functions: async (c) => {
        if (fail) throw new Error('could not register');
        await c.run('CREATE MACRO twice(x) AS x * 2');
      },
    });
    await expect(pool.with([files[0]!], (c) => scalar(c, 'SELECT 1'))).rejects.toThrow('could not register');
    await expect.poll(() => pool.size).toBe(0);
    // Nothing of the failed start is left in the pool's folder.
    const dir = (pool as unknown as { opts: { dir: string } }).opts.dir;
    await expect.poll(async () => (await fs.readdir(dir).catch(() => [])).length).toBe(0);
    fail = false;
    expect(Number(await pool.with([files[0]!], (c) => scalar(c, 'SELECT twice(21)')))).toBe(42);
    await pool.close();
  });

  it('refuses work once closed', async () => {
    const pool = fresh();
    await pool.close();
    await expect(pool.with([], (c) => scalar(c, 'SELECT 1'))).rejects.toThrow('The SQL sandbox is closed');
  });
});
