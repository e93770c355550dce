import http from 'node:http';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DataType, tableFromIPC, type Table } from 'apache-arrow';
import { STORES, seedCast, startStudio, useWarehouse, warehouseConnection, type TestStudio } from './harness';

/**
 * Pushed-down answers asked as Arrow stream from PostgreSQL's binary COPY (#14): the same types and values
 * as the text path (COPY CSV typed by DuckDB) for every type either reads, nulls and the ends of the date
 * range included; the text path still answers JSON columns; errors before the first byte are statuses.
 */
const WAREHOUSE = useWarehouse('studio_wharrow', `
    create table typed (
      b boolean, i2 smallint, i4 integer, i8 bigint, o oid, f4 real, f8 double precision, n numeric, n2 numeric(10, 3),
      d date, ts timestamp, tz timestamptz, t text, v varchar(20), c char(4), nm name, iv interval, ip inet, arr int[], big numeric,
      j json, jb jsonb, u uuid);
    insert into typed values
      (true, 1, 2, 9007199254740993, 4000000000, 0.1, 0.1, 1.5, 12.345, '2024-02-29', '2024-02-29 12:34:56.789012', '2024-02-29 12:00:00+02',
       'plain', 'vär', 'ab', 'a_name', '1 day 02:00:00', '10.1.2.3/32', '{1,2,NULL}', 123456789012345678901234567890.5,
       '{"a":  [1, 2]}', '{"b": {"c": "ü"}, "a": 1}', 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'),
      (false, -32768, -2147483648, -9223372036854775808, 0, 'NaN', '-Infinity', 'NaN', -0.001, '1970-01-01', '1970-01-01 00:00:00', '1969-12-31 23:59:59.999999+00',
       '', '', '', '', '-3 months', '::1', '{}', 0, 'null', '[]', '00000000-0000-0000-0000-000000000000'),
      (null, null, null, null, null, null, null, null, null, 'infinity', '-infinity', 'infinity', null, null, null, null, null, null, null, null, null, null, null),
      (true, 32767, 2147483647, 9223372036854775807, 4294967295, 3.4e38, 1.7976931348623157e308, 1e-20, 0, '0044-03-15', '1900-01-01 00:00:00', '2262-04-11 23:47:16.854775+00',
       repeat('long text ', 40), 'x', 'abcd', 'n', '0', '0.0.0.0/0', '{-1}', -1e20, '"s"', '3', null),
      (null, null, null, null, null, null, null, null, null, '-infinity', 'infinity', '-infinity', null, null, null, null, null, null, null, null, null, null, null),
      (null, null, null, null, null, 1.17549435e-38, 5e-324, null, null, '12345-06-07', '2300-01-01 00:00:00.000001', '12345-06-07 08:09:10.5+05:30',
       E'tab\\there\\nnew line\\\\back\\rslash é', E'\\x01\\x7f', 'a\\b', null, null, null, '{1}', null, E'{"k": "v\\\\n"}', null, null);
    create table wide as select g as id, 'zone_' || (g % 50) as zone, (g % 97) * 1.5 as fare, g % 7 as vendor from generate_series(1, 200000) g;
    create table nums as select g, (random() * 10 ^ (g % 60 - 30))::numeric as n, round((random() * 1e6)::numeric, g % 25) as r,
      (g * 1234567.891)::numeric(30, 9) as fixed, ((-1) ^ g * 2 ^ (g % 64))::numeric as pow2 from generate_series(1, 5000) g;
    insert into nums values (0, 0, 0, 0, 9007199254740993), (-1, 'NaN', 'Infinity', 0, '-Infinity'), (-2, 123456789.123456789, 1e-30, -0.000000001, 1e22),
      (-3, 1e23, 99999999999999999999999.5, 0.30000000000000004, 2.5e-310);
    create table ancient (d date, ts timestamp); insert into ancient values ('0044-03-15 BC', '0001-01-01 00:00:00 BC');
    create table clock (id int, at time); insert into clock values (1, '12:34:56.789'), (2, null);`);

/**
 * Rows as comparable JSON, read from the buffers: 64-bit values (integers, timestamps) as their exact text
 * (Arrow's own reading of a timestamp at the end of the range throws), non-finite floats as text.
 */
function rowsOf(t: Table): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = Array.from({ length: t.numRows }, () => ({}));
  t.schema.fields.forEach((f, i) => {
    let r = 0;
    for (const d of t.getChildAt(i)!.data) {
      for (let k = 0; k < d.length; k++, r++) {
        let v: unknown = null;
        if (d.getValid(k)) {
          const raw = (d.values as ArrayLike<unknown>)[d.offset + k];
          if (typeof raw === 'bigint') v = `${raw}n`;
          else if (DataType.isDate(f.type) || DataType.isTimestamp(f.type)) v = raw;
          else v = t.getChildAt(i)!.get(r);
          if (typeof v === 'number' && !Number.isFinite(v)) v = String(v);
        }
        rows[r]![f.name] = v;
      }
    }
  });
  return rows;
}
const typesOf = (t: Table) => t.schema.fields.map((f) => `${f.name}: ${String(f.type)}`);

describe.each(STORES)('Arrow straight from PostgreSQL on %s', (kind) => {
  let s: TestStudio;
  let cast: Awaited<ReturnType<typeof seedCast>>;
  let connId: string;
  const call = (method: string, url: string, payload?: unknown) => s.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { authorization: cast.tokens.owner } });
  const liveDataset = async (query: string) => (await call('POST', '/v1/datasets/query', { connectionId: connId, query, name: query.slice(0, 40), live: true })).json().item.id as string;

  beforeAll(async () => {
    s = await startStudio(kind);
    cast = await seedCast(s);
    connId = (await call('POST', '/v1/data-connections', { ...warehouseConnection(WAREHOUSE), name: 'Warehouse' })).json().item.id;
  });
  afterAll(async () => s?.dispose());

  const connection = () => s.services.db.selectFrom('resources').selectAll().where('id', '=', connId).executeTakeFirstOrThrow();

  /** The binary path's answer, read by the service itself. */
  async function binaryAnswer(sql: string): Promise<Table | null> {
    const parts: Uint8Array[] = [];
    const done = await s.services.executions.warehouseArrow(await connection(), sql, {}, async (b) => void parts.push(b), new AbortController().signal);
    return done ? tableFromIPC(Buffer.concat(parts)) : null;
  }

  /** The text path's answer: the warehouse's CSV typed by DuckDB, then DuckDB's Arrow. */
  async function textAnswer(sql: string): Promise<Table> {
    const file = await s.services.executions.pushDownFile();
    const select = await s.services.executions.warehouseRows(await connection(), sql, {}, file, new AbortController().signal);
    const parts: Uint8Array[] = [];
    for await (const b of s.services.engine.arrowStream({ sql: select, params: [] })) parts.push(b);
    return tableFromIPC(Buffer.concat(parts));
  }

  it.each([
    ['every type either path reads, nulls, NaN, infinities and range ends', 'select * from typed'],
    ['repeated and computed column names', 'select i4 as x, i8 as x, i2 + 1, upper(t) from typed'],
    ['an empty result', 'select * from typed where false'],
    ['200,000 rows over several batches', 'select * from wide order by id'],
    ['numerics of every scale, exact and not, to the nearest double', 'select * from nums order by g'],
  ])('answers %s as the text path does', async (_what, sql) => {
    const binary = await binaryAnswer(sql);
    expect(binary).not.toBeNull();
    const text = await textAnswer(sql);
    expect(typesOf(binary!)).toEqual(typesOf(text));
    expect(binary!.numRows).toBe(text.numRows);
    expect(rowsOf(binary!)).toEqual(rowsOf(text));
  });

  it('reads the values a user would check: 64-bit integers exactly, dates and instants in UTC, padded char', async () => {
    const rows = rowsOf((await binaryAnswer('select i8, o, d, tz, c, n2 from typed'))!);
    expect(rows[0]).toEqual({ i8: '9007199254740993n', o: '4000000000n', d: Date.UTC(2024, 1, 29) / 86_400_000, tz: `${Date.UTC(2024, 1, 29, 10) * 1000}n`, c: 'ab  ', n2: 12.345 });
    expect(rows[2]).toMatchObject({ i8: null, o: null, c: null });
    // Dates before the common era: the text path's DuckDB reads '0044-03-15 BC' as AD 44 (and cannot read a BC
    // timestamp); the Arrow path keeps PostgreSQL's value (year 44 BC is the astronomical year -43).
    expect(rowsOf((await binaryAnswer('select * from ancient'))!)).toEqual([{ d: -735160, ts: '-62167219200000000n' }]);
  });

  it('leaves TIME columns to the text path (DuckDB re-formats their text), which still answers Arrow', async () => {
    expect(await binaryAnswer('select * from clock')).toBeNull();
    const res = await call('POST', '/v1/query?format=arrow', { type: 'dataset', uuid: await liveDataset('select id, at from clock order by id') });
    expect([res.statusCode, res.headers['x-studio-engine']]).toEqual([200, 'postgres']);
    expect(rowsOf(tableFromIPC(res.rawPayload)).map((r) => r.at)).toEqual(['12:34:56.789', null]);
  });

  it('answers a pipeline over a live dataset as Arrow from the warehouse; identical requests at once get the same bytes', async () => {
    const live = await liveDataset('select id, zone, fare, vendor from wide');
    const pipeline = { type: 'sort', by: ['id'], input: [{ type: 'filter', expression: 'vendor <> 3', input: [{ type: 'dataset', uuid: live }] }] };
    const answers = await Promise.all([1, 2, 3].map(() => call('POST', '/v1/query?format=arrow', pipeline)));
    for (const res of answers) expect([res.statusCode, res.headers['x-studio-engine'], res.headers['content-type']]).toEqual([200, 'postgres', 'application/vnd.apache.arrow.stream']);
    expect(answers[1]!.rawPayload.equals(answers[0]!.rawPayload) && answers[2]!.rawPayload.equals(answers[0]!.rawPayload)).toBe(true);
    const table = tableFromIPC(answers[0]!.rawPayload);
    expect(table.numRows).toBe(200000 - Math.floor((200000 + 4) / 7));
    expect(typesOf(table)).toEqual(['id: Int32', 'zone: Utf8', 'fare: Float64', 'vendor: Int32']);
    expect(rowsOf(table).slice(0, 2)).toEqual([{ id: 1, zone: 'zone_1', fare: 1.5, vendor: 1 }, { id: 2, zone: 'zone_2', fare: 3, vendor: 2 }]);
  });

  it('keeps running a shared CSV push-down for the readers left when the first one hangs up', async () => {
    const live = await liveDataset('select g as id from generate_series(1, 3) g cross join (select pg_sleep(1.5)) s');
    const address = new URL(await s.app.listen({ port: 0, host: '127.0.0.1' }));
    const body = JSON.stringify({ type: 'dataset', uuid: live });
    const send = () => {
      const req = http.request({ host: '127.0.0.1', port: address.port, method: 'POST', path: '/v1/query?format=csv', headers: { authorization: cast.tokens.owner, 'content-type': 'application/json' } });
      const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
        req.on('response', (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        });
        req.on('error', reject);
      });
      req.end(body);
      return { req, answer };
    };
    const first = send();
    first.answer.catch(() => undefined);
    const second = send();
    // The event the test waits for: the warehouse is running the shared query (both readers joined it).
    const admin = new pg.Client({ connectionString: inject('warehouseServer').adminUrl });
    await admin.connect();
    try {
      const running = async () => Number((await admin.query(`select count(*) from pg_stat_activity where datname = $1 and state = 'active' and query like '%pg_sleep%'`, [WAREHOUSE])).rows[0].count);
      await expect.poll(running, { timeout: 15_000, interval: 20 }).toBe(1);
    } finally {
      await admin.end();
    }
    first.req.destroy();
    const { status, text } = await second.answer;
    expect(status).toBe(200);
    expect(text.trim().split('\n')).toEqual(['id', '1', '2', '3']);
  });

  it("answers the warehouse's own message as a status when the query fails before its first row", async () => {
    const live = await liveDataset('select id, zone from wide');
    // A column the warehouse does not have, pushed down: PostgreSQL's message, 422, not a cut stream.
    const res = await call('POST', '/v1/query?format=arrow', { type: 'select', expressions: ['nope'], input: [{ type: 'dataset', uuid: live }] });
    expect(res.statusCode).toBe(422);
  });
});
