import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DEFAULT_DRIVER_SETTINGS, driverFor, type DriverTarget } from '@studio/warehouses';
import { loopbackOnly, rowFetcher, useScratchDatabase } from './helpers';

/**
 * The PostgreSQL driver's two ways of reading a result — COPY … TO STDOUT (CSV) for a query without
 * parameters, a cursor's text rows for one with them — give the same rows, awkward values included.
 */
const driver = driverFor('postgres');
const { database, url: databaseUrl } = useScratchDatabase('studio_pgdriver', `
  create table awkward (id int, txt text, n numeric, ts timestamptz, j jsonb);
  insert into awkward values (1, 'a, "quoted" value', 1.5, '2024-05-01 10:00:00+00', '{"k": [1, 2]}'),
    (2, E'two\\nlines', null, null, null), (3, '', 0, '2024-05-02 00:00:00+00', '[]'), (4, null, -2, null, 'null'), (5, 'ünïcødé ✓', 1e10, null, '"s"');
  create table many as select g as id from generate_series(1, 5000) g;`);
let dir: string;
const fetchRows = rowFetcher(driver, () => dir);
const admin = () => new pg.Client({ connectionString: inject('warehouseServer').adminUrl });

const target = (over: Partial<DriverTarget['settings']> = {}): DriverTarget => {
  const { host, port, user } = inject('warehouseServer');
  return { type: 'postgres', config: { host, port, database, user, sslmode: 'disable' }, credentials: null, reach: loopbackOnly, settings: { ...DEFAULT_DRIVER_SETTINGS, ...over } };
};

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'pg-driver-'));
});
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

describe('PostgreSQL driver: COPY and cursor reads', () => {
  it('answers the same rows either way: commas, quotes, newlines, empty text against NULL, unicode, JSON', async () => {
    const copied = await fetchRows(target(), 'select * from awkward order by id');
    const cursored = await fetchRows(target(), 'select * from awkward where id > $min order by id', { min: 0 });
    expect(copied.format).toBe('csv');
    expect(cursored.format ?? 'ndjson').toBe('ndjson');
    expect(copied.columns).toEqual(cursored.columns);
    expect(copied.rowCount).toBe(5);
    expect(copied.rows).toEqual(cursored.rows);
    expect(copied.rows.map((r) => r.c1)).toEqual(['a, "quoted" value', 'two\nlines', '', null, 'ünïcødé ✓']);
  });

  it.each([
    ['COPY', 'select id from many', {}],
    // Parameters: an answer the planner expects to be small runs whole (parallel plans allowed), a large one
    // through a cursor (never parallel, but streamed).
    ['parameters, run whole (5,000 rows expected)', 'select id from many where id > $min', { min: 0 }],
    ['parameters, through a cursor (millions of rows expected)', 'select a.id from many a, many b where a.id > $min', { min: 0 }],
  ])('stops past the row limit reading with %s', async (_how, sql, values) => {
    await expect(fetchRows(target({ maxRows: 1000 }), sql, values)).rejects.toMatchObject({ status: 422, message: 'The result has more than 1000 rows' });
    // The warehouse answers the next query at once: a read cut short leaves no session stuck mid-result.
    expect((await fetchRows(target({ maxRows: 1000 }), 'select count(*) from many where $x = 1', { x: 1 })).rows).toEqual([{ c0: '5000' }]);
  });

  it.each([
    ['without quotes (counted by the native search)', 'select id from many', 5000],
    ['with quoted newlines (counted byte by byte)', "select E'a\\nb' as t, id from many where id <= 1500", 1500],
  ])('counts COPY rows %s', async (_how, sql, rows) => {
    expect((await fetchRows(target(), sql)).rowCount).toBe(rows);
  });

  it('answers the same rows with parameters whether run whole or through a cursor', async () => {
    const whole = await fetchRows(target(), 'select id, $tag::text as tag from many where id <= $max order by id', { tag: 'w', max: 2500 });
    const cursor = await fetchRows(target(), 'select a.id, $tag::text as tag from many a, many b where b.id % 5000 = 1 and a.id <= $max order by a.id', { tag: 'w', max: 2500 });
    expect(whole.rowCount).toBe(2500);
    expect(cursor.rows).toEqual(whole.rows);
    expect(cursor.columns.map((c) => c.duckType)).toEqual(whole.columns.map((c) => c.duckType));
  });

  it("answers PostgreSQL's own message for bad SQL on the COPY path", async () => {
    await expect(fetchRows(target(), 'select nope from awkward')).rejects.toMatchObject({ status: 422, message: expect.stringMatching(/column "nope" does not exist/) });
  });

  it('refuses writes on the COPY path too (a read-only transaction)', async () => {
    await expect(fetchRows(target(), 'delete from awkward returning id')).rejects.toMatchObject({ status: 422 });
    const c = new pg.Client({ connectionString: databaseUrl() });
    await c.connect();
    expect((await c.query('select count(*)::int as n from awkward')).rows[0].n).toBe(5);
    await c.end();
  });
});

describe('PostgreSQL driver: kept sessions', () => {
  /** The server process of the session a fetch ran in, and the advisory locks that session holds. */
  const sessionOf = async (t: DriverTarget) => {
    const r = await fetchRows(t, "select pg_backend_pid()::text as pid, (select count(*) from pg_locks where locktype = 'advisory' and pid = pg_backend_pid())::text as locks where $x = 1", { x: 1 });
    const [pid, locks] = Object.values(r.rows[0]!);
    return { pid, locks };
  };

  it('runs one query after another in one kept session', async () => {
    const t = target();
    const a = admin();
    await a.connect();
    try {
      const pids: unknown[] = [];
      for (let i = 0; i < 4; i++) {
        const { pid } = await sessionOf(t);
        pids.push(pid);
        // The session goes back to the pool once reset (its last statement DISCARD ALL), just after the answer.
        const reset = async () => (await a.query("select state || ' ' || query as s from pg_stat_activity where pid = $1", [Number(pid)])).rows[0]?.s;
        await expect.poll(reset, { timeout: 10_000 }).toBe('idle discard all');
      }
      expect(new Set(pids).size).toBe(1);
    } finally {
      await a.end();
    }
  });

  it('hands a kept session over clean: a lock a query took is released while the session lives on', async () => {
    const t = target();
    const took = await fetchRows(t, "select pg_backend_pid()::text as pid, pg_advisory_lock(4242)::text as locked where $x = 1", { x: 1 });
    const pid = Number(Object.values(took.rows[0]!)[0]);
    const a = admin();
    await a.connect();
    try {
      const held = async () => Number((await a.query("select count(*)::int as n from pg_locks where locktype = 'advisory' and objid = 4242")).rows[0].n);
      await expect.poll(held, { timeout: 5000 }).toBe(0);
      expect((await a.query('select count(*)::int as n from pg_stat_activity where pid = $1', [pid])).rows[0].n).toBe(1);
    } finally {
      await a.end();
    }
  });

  it('does not keep a session a cancel was sent to (the cancel could land on the next query)', async () => {
    const a = admin();
    await a.connect();
    try {
      const abort = new AbortController();
      const slow = fetchRows(target(), 'select pg_sleep(30)', {}, abort.signal);
      // The server process running the slow query, as PostgreSQL lists it.
      const sleeper = async () => Number((await a.query("select pid from pg_stat_activity where state = 'active' and query like '%pg_sleep(30)%' and pid <> pg_backend_pid()")).rows[0]?.pid ?? 0);
      await expect.poll(sleeper, { timeout: 10_000 }).toBeGreaterThan(0);
      const pid = await sleeper();
      abort.abort();
      await expect(slow).rejects.toThrow(/cancel/i);
      // A kept session would stay (idle); this one is closed.
      const alive = async () => Number((await a.query('select count(*)::int as n from pg_stat_activity where pid = $1', [pid])).rows[0].n);
      await expect.poll(alive, { timeout: 10_000 }).toBe(0);
    } finally {
      await a.end();
    }
  });

  it('keeps sessions per identity: another user or password is another session', async () => {
    const mine = await sessionOf(target());
    const other = await sessionOf({ ...target(), credentials: { password: 'another secret' } });
    expect(other.pid).not.toBe(mine.pid);
  });
});
