// Warehouse push-down (#14), on a PostgreSQL server of its own (initdb on a loopback port, as the tests):
// (1) a pipeline filter + group over a BENCH_WAREHOUSE_ROWS-row table (default 1M) pushed down through
//     POST /v1/query, as a ratio to the hand-written PostgreSQL query run by `pg` in this process
//     (target <= 1.2), and, printed, to pulling the table into DuckDB first and grouping there;
// (2) the whole table as a query result to Arrow over HTTP, as a ratio of throughput to
//     `COPY (query) TO STDOUT` read by this process (target >= 0.7);
// (3) ten identical pipelines at once, as a ratio to one (target <= 1.2).
// Each figure is the median of BENCH_WAREHOUSE_RUNS runs (default 3), the two sides alternating.
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { buildStudio } from '../src/app';
import { configFromEnv } from '../src/config';
import { parseHostPatterns } from '../src/services/network-reach';
import { createOrganization, createUser } from '../src/services/users';
import startWarehouse, { type WarehouseServer } from '../test/warehouse-server';

const ROWS = Number(process.env.BENCH_WAREHOUSE_ROWS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_WAREHOUSE_RUNS ?? 3);
const load = () => `load ${os.loadavg()[0]!.toFixed(2)}`;
const median = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1]!;
const ms = (n: number) => `${n.toFixed(0)} ms`;

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

async function main() {
  let server: WarehouseServer | undefined;
  const stop = await startWarehouse({ provide: (_k: string, v: WarehouseServer) => (server = v) } as never);
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'studio-warehouse-bench-'));
  const studio = await buildStudio(
    { ...configFromEnv({}), dataDir, databaseUrl: null, secret: 'bench', webDir: null, connectionHosts: parseHostPatterns(`${server!.host}:${server!.port}`) },
    { inMemoryCatalog: true },
  );
  try {
    const admin = new pg.Client({ connectionString: server!.adminUrl });
    await admin.connect();
    await admin.query(`create database bench owner ${server!.user}`);
    await admin.end();
    const url = `postgres://${server!.user}@${server!.host}:${server!.port}/bench`;
    const wh = new pg.Client({ connectionString: url });
    await wh.connect();
    console.log(`making ${ROWS.toLocaleString()} rows in PostgreSQL…`);
    await wh.query(`create table trips as select i as id, 'zone_' || (i % 50) as zone, (i % 97) * 1.5 as fare, i % 7 as vendor
      from generate_series(1, ${ROWS}) as g(i)`);
    await wh.query('analyze trips');

    const org = await createOrganization(studio.services.db, 'Bench');
    await createUser(studio.services.db, { email: 'bench@studio.test', password: 'bench-password', organizationId: org.id });
    const address = await studio.app.listen({ port: 0, host: '127.0.0.1' });
    const signIn = await fetch(`${address}/v1/auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'bench@studio.test', password: 'bench-password' }) });
    const auth = { authorization: `Bearer ${((await signIn.json()) as { item: { accessToken: string } }).item.accessToken}` };
    const api = async (method: string, p: string, body: unknown, headers: Record<string, string> = {}) => {
      const res = await fetch(`${address}${p}`, { method, headers: { ...auth, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
      if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
      return res;
    };
    const connection = (await (await api('POST', '/v1/data-connections', { type: 'postgres', name: 'Bench', host: server!.host, port: server!.port, database: 'bench', user: server!.user, sslmode: 'disable' })).json()) as { item: { id: string } };
    // A live dataset of a small query (its snapshot is cheap); the pipeline runs on the warehouse.
    const live = (await (await api('POST', '/v1/datasets/query', { connectionId: connection.item.id, query: 'select id, zone, fare, vendor from trips', name: 'Trips', live: true })).json()) as { item: { id: string } };

    const pipeline = { type: 'group', by: ['zone'], expressions: ['count(*) AS n', 'sum(fare) AS total'], input: [{ type: 'filter', expression: 'vendor <> 3', input: [{ type: 'dataset', uuid: live.item.id }] }] };
    const handSql = 'select zone, count(*) as n, sum(fare) as total from trips where vendor <> 3 group by zone';
    const pushedDown = async () => {
      const res = await api('POST', '/v1/query?format=json', pipeline);
      const rows = ((await res.json()) as { items: unknown[] }).items;
      if (rows.length !== 50 || res.headers.get('x-studio-engine') !== 'postgres') throw new Error(`push-down answered ${rows.length} rows on ${res.headers.get('x-studio-engine')}`);
    };
    const byHand = async () => {
      const r = await wh.query(handSql);
      if (r.rows.length !== 50) throw new Error('hand query');
    };
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      a.push(await timed(pushedDown));
      b.push(await timed(byHand));
    }
    console.log(`(1) filter + group pushed down: ${ms(median(a))}, hand-written on PostgreSQL: ${ms(median(b))}, ratio ${(median(a) / median(b)).toFixed(2)} (target <= 1.2; ${load()})`);

    // Pulling the table into DuckDB first: a snapshot dataset of the whole table, then the pipeline on it.
    const pulled = await timed(async () => {
      const snap = (await (await api('POST', '/v1/datasets/query', { connectionId: connection.item.id, query: 'select id, zone, fare, vendor from trips', name: 'Trips snapshot' })).json()) as { item: { id: string } };
      await api('POST', '/v1/query?format=json', { ...pipeline, input: [{ ...pipeline.input[0], input: [{ type: 'dataset', uuid: snap.item.id }] }] });
    });
    console.log(`    pulling the table into DuckDB and grouping there: ${ms(pulled)}, ratio ${(pulled / median(a)).toFixed(1)} of the push-down`);

    // (2) The whole table as Arrow over HTTP, against COPY … TO STDOUT read here.
    const everything = { type: 'select', expressions: ['id', 'zone', 'fare', 'vendor'], input: [{ type: 'dataset', uuid: live.item.id }] };
    const asArrow = async () => {
      const res = await api('POST', '/v1/query?format=arrow', everything);
      let bytes = 0;
      const reader = res.body!.getReader();
      for (let r = await reader.read(); !r.done; r = await reader.read()) bytes += r.value.length;
      if (bytes < ROWS) throw new Error(`arrow: ${bytes} bytes`);
    };
    const asCopy = async () => {
      const stream = wh.query(copyTo('COPY (select id, zone, fare, vendor from trips) TO STDOUT'));
      let bytes = 0;
      for await (const chunk of stream) bytes += (chunk as Buffer).length;
      if (bytes < ROWS) throw new Error(`copy: ${bytes} bytes`);
    };
    const c: number[] = [];
    const d: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      c.push(await timed(asArrow));
      d.push(await timed(asCopy));
    }
    console.log(`(2) ${ROWS.toLocaleString()} rows to Arrow over HTTP: ${ms(median(c))}, COPY TO STDOUT: ${ms(median(d))}, throughput ratio ${(median(d) / median(c)).toFixed(2)} (target >= 0.7; ${load()})`);

    // (3) Ten identical pipelines at once against one.
    const singles: number[] = [];
    for (let i = 0; i < RUNS; i++) singles.push(await timed(pushedDown));
    const one = median(singles);
    const ten = await timed(() => Promise.all(Array.from({ length: 10 }, pushedDown)));
    console.log(`(3) ten identical pipelines at once: ${ms(ten)}, one: ${ms(one)}, ratio ${(ten / one).toFixed(2)} (target <= 1.2; ${load()})`);
    await wh.end();
  } finally {
    await studio.close();
    await fs.rm(dataDir, { recursive: true, force: true });
    stop();
  }
}

await main();
