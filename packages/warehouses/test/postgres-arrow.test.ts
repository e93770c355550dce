import pg from 'pg';
import fc from 'fast-check';
import { to as copyTo } from 'pg-copy-streams';
import { tableFromIPC } from 'apache-arrow';
import { describe, expect, inject, it } from 'vitest';
import { DEFAULT_DRIVER_SETTINGS, driverFor, type DriverTarget, type ParamValue } from '@studio/warehouses';
import { arrowPlan } from '../src/postgres/copy-arrow';
import { textCopySql, TextCopyToArrow } from '../src/postgres/text-arrow';
import { loopbackOnly, useScratchDatabase } from './helpers';

/**
 * The PostgreSQL driver's Arrow path (#14): binary COPY read straight into Arrow batches as rows arrive.
 * Its agreement with the text path, type by type, is tested through the server (warehouse-arrow.test.ts);
 * here: chunking, batching, limits, cancels, and the statements it leaves to the text path.
 */
const driver = driverFor('postgres');
const { database, url: databaseUrl } = useScratchDatabase('studio_pgarrow', `
  create table many as select g as id, 'name ' || g || case when g % 10 = 0 then E'\\t\\\\x\\n' else '' end as name, case when g % 3 = 0 then null else g * 0.5 end as half, g % 2 = 0 as even from generate_series(1, 5000) g;
  create table clock (at time); insert into clock values ('10:00');`);
const admin = () => new pg.Client({ connectionString: inject('warehouseServer').adminUrl });

const target = (over: Partial<DriverTarget['settings']> = {}, type: DriverTarget['type'] = 'postgres'): DriverTarget => {
  const { host, port, user } = inject('warehouseServer');
  return { type, config: { host, port, database, user, sslmode: 'disable' }, credentials: null, reach: loopbackOnly, settings: { ...DEFAULT_DRIVER_SETTINGS, ...over } };
};

async function arrowOf(t: DriverTarget, sql: string, values: Record<string, ParamValue> = {}, signal?: AbortSignal) {
  const parts: Uint8Array[] = [];
  const done = await driver.fetchArrow!(t, sql, values, async (b) => void parts.push(b), signal);
  return done ? { ...done, parts, table: tableFromIPC(Buffer.concat(parts)) } : null;
}

/** The raw COPY bytes of `sql` (as the driver asks for them), for feeding the decoder by hand. */
async function copyBytes(sql: string) {
  const c = new pg.Client({ connectionString: databaseUrl() });
  await c.connect();
  try {
    const described = await c.query({ text: `select * from (${sql}) q limit 0`, rowMode: 'array' });
    const plans = arrowPlan(described.fields)!;
    const chunks: Buffer[] = [];
    for await (const chunk of c.query(copyTo(textCopySql(sql, plans)))) chunks.push(chunk as Buffer);
    return { plans, bytes: Buffer.concat(chunks) };
  } finally {
    await c.end();
  }
}

describe('PostgreSQL rows straight to Arrow', () => {
  it('answers the rows, typed, in batches of the set size', async () => {
    const answer = (await arrowOf(target(), 'select * from many order by id'))!;
    expect(answer.rowCount).toBe(5000);
    expect(answer.table.schema.fields.map((f) => `${f.name}: ${String(f.type)}`)).toEqual(['id: Int32', 'name: Utf8', 'half: Float64', 'even: Bool']);
    expect(answer.table.get(2)?.toJSON()).toEqual({ id: 3, name: 'name 3', half: null, even: false });
    expect(answer.table.get(3)?.toJSON()).toEqual({ id: 4, name: 'name 4', half: 2, even: true });
    const { plans, bytes } = await copyBytes('select * from many');
    const small = new TextCopyToArrow(plans, 1000);
    const read = small.push(bytes);
    small.streamDone();
    const ipc = Buffer.concat([...read, ...small.end()]);
    expect(tableFromIPC(ipc).batches.map((b) => b.numRows)).toEqual([1000, 1000, 1000, 1000, 1000]);
  });

  it('answers the same bytes however the COPY stream is cut into chunks', async () => {
    const { plans, bytes } = await copyBytes('select * from many where id <= 300 order by id');
    const decode = (cuts: number[]) => {
      const d = new TextCopyToArrow(plans, 128);
      const out: Uint8Array[] = [];
      let at = 0;
      for (const cut of [...cuts.sort((a, b) => a - b), bytes.length]) {
        out.push(...d.push(bytes.subarray(at, cut)));
        at = cut;
      }
      d.streamDone();
      return Buffer.concat([...out, ...d.end()]);
    };
    const whole = decode([]);
    fc.assert(fc.property(fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 40 }), (cuts) => decode(cuts).equals(whole)), { numRuns: 200 });
    expect(tableFromIPC(whole).get(9)?.toJSON()).toMatchObject({ id: 10, name: 'name 10\t\\x\n' });
    // Every single-byte cut too: inside numbers, text, escapes and at row ends.
    for (let cut = 1; cut < 200; cut++) expect(decode([cut]).equals(whole)).toBe(true);
  });

  it('refuses rows of another shape, and a stream that ends inside a row', async () => {
    const { plans, bytes } = await copyBytes('select * from many where id <= 10');
    expect(() => new TextCopyToArrow(plans).push(Buffer.from('1\tname\n'))).toThrow('COPY row of 2 fields, expected 4');
    expect(() => new TextCopyToArrow(plans).push(Buffer.from('1\tname\t0.5\tt\textra\n'))).toThrow('COPY row of more than 4 fields');
    const cut = new TextCopyToArrow(plans);
    cut.push(bytes.subarray(0, bytes.length - 3));
    cut.streamDone();
    expect(() => cut.end()).toThrow('The COPY stream ended early');
  });

  it.each([
    ['parameters (COPY binds none)', 'select id from many where id < $n', { n: 5 }, 'postgres'],
    ['a TIME column (its text is re-formatted by DuckDB)', 'select at from clock', {}, 'postgres'],
    ["Redshift (its COPY only loads tables)", 'select id from many', {}, 'redshift'],
  ] as const)('leaves %s to the text path, sending nothing', async (_what, sql, values, type) => {
    expect(await arrowOf(target({}, type), sql, values)).toBeNull();
  });

  it('stops past the row limit, and the warehouse answers the next query at once', async () => {
    await expect(arrowOf(target({ maxRows: 1000 }), 'select * from many')).rejects.toMatchObject({ status: 422, message: 'The result has more than 1000 rows' });
    expect((await arrowOf(target({ maxRows: 1000 }), 'select count(*) as n from many'))!.table.get(0)?.toJSON()).toEqual({ n: 5000n });
  });

  it("answers PostgreSQL's own message before any byte for bad SQL, and refuses writes", async () => {
    await expect(arrowOf(target(), 'select nope from many')).rejects.toMatchObject({ status: 422, message: expect.stringMatching(/column "nope" does not exist/) });
    await expect(arrowOf(target(), 'delete from many returning id')).rejects.toMatchObject({ status: 422 });
    expect((await arrowOf(target(), 'select count(*)::int as n from many'))!.table.get(0)?.toJSON()).toEqual({ n: 5000 });
  });

  it('is cancelled by an abort while the warehouse is still working, on the warehouse too', async () => {
    const a = admin();
    await a.connect();
    try {
      const abort = new AbortController();
      const slow = arrowOf(target(), 'select pg_sleep(30)::text as s', {}, abort.signal);
      const sleeper = async () => Number((await a.query("select count(*)::int as n from pg_stat_activity where state = 'active' and query like '%pg_sleep(30)%' and pid <> pg_backend_pid()")).rows[0].n);
      await expect.poll(sleeper, { timeout: 10_000 }).toBe(1);
      abort.abort();
      await expect(slow).rejects.toMatchObject({ status: 499 });
      await expect.poll(sleeper, { timeout: 10_000 }).toBe(0);
    } finally {
      await a.end();
    }
  });
});
