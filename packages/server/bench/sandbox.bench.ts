// The SQL sandbox's cost (#11): a user query over one dataset, rewritten and run on a locked DuckDB
// instance that reads only that dataset's file, as a ratio to the same query on the engine's own
// connection. Warm: the locked instance for that file is already open (as it is for every query after
// a user's first). Alternating runs, median of fifteen; the load average is printed on the line.
// #45: the same query through the worker processes (the sandbox as it runs now) against the in-process sandbox
// it replaced (the same rewrite and locked instances, run in this process), warm (<= 1.2) and first (printed).
import { loadavg } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { registerH3Functions } from '@studio/pipeline';
import { line, short, tempDir, time } from '../../engine/bench/util';
import { SqlSandbox } from '../src/services/sql-sandbox';
import { LockedInstances } from '../src/services/sql-sandbox/locked-instances';
import { rewriteSql } from '../src/services/sql-sandbox/rewrite';

const ROWS = Number(process.env.BENCH_ROWS ?? 0) || 1_000_000;
const RUNS = 15;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const { dir, cleanup } = await tempDir('sandbox-bench-');
try {
  const file = path.join(dir, 'points.parquet');
  const engine = await DuckDBInstance.create(':memory:', { memory_limit: '512MB' });
  const c = await engine.connect();
  await c.run(`COPY (SELECT 40 + (hash(i) % 100000) / 100000.0 AS lat, -74 + (hash(i + 1) % 100000) / 100000.0 AS lng,
      'cat_' || (i % 12) AS category, (hash(i) % 1000) / 10.0 AS amount FROM range(${ROWS}) t(i)) TO '${file}' (FORMAT parquet)`);
  const sandbox = new SqlSandbox({ dir: path.join(dir, 'sandbox'), dataDir: dir, memoryLimit: '512MB', workers: 1, maxInstances: 4 });
  // The in-process sandbox of before #45: the same rewrite and lockdown, on this process's own DuckDB instances.
  const inProcess = new LockedInstances({ dir: path.join(dir, 'in-process'), memoryLimit: '512MB', maxInstances: 4, functions: registerH3Functions });
  const userSql = 'SELECT category, count(*) AS n, round(avg(amount), 6) AS mean, max(lat) AS north FROM points WHERE amount > 10 GROUP BY category ORDER BY category';
  const engineSql = userSql.replace('FROM points', `FROM read_parquet('${file}')`);
  const resolve = async (name: string) => {
    if (name !== 'points') throw new Error(`unknown table ${name}`);
    return file;
  };
  const viaSandbox = async () => sandbox.readRows(await sandbox.compile(userSql, resolve));
  const viaEngine = async () => (await c.runAndReadAll(engineSql)).getRows();
  const viaInProcess = async () => {
    const q = await inProcess.with([], (conn) => rewriteSql(conn, userSql, resolve));
    return inProcess.with([...q.files.values()], async (conn) => (await conn.runAndReadAll(q.sql)).getRows());
  };

  // First queries: the worker process's start, its instance opened and locked, against the in-process sandbox's instance.
  const [firstInProcess] = await time(viaInProcess);

  // Cold: the first query opens and locks the instance for this file.
  const [cold] = await time(viaSandbox);
  await viaEngine();
  const ours: number[] = [];
  const base: number[] = [];
  const inProc: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    base.push((await time(viaEngine))[0]);
    ours.push((await time(viaSandbox))[0]);
    inProc.push((await time(viaInProcess))[0]);
  }
  const [rowsEngine, rowsSandbox] = [await viaEngine(), await viaSandbox()];
  if (JSON.stringify(rowsEngine, (_k, v) => (typeof v === 'bigint' ? Number(v) : v)) !== JSON.stringify(rowsSandbox, (_k, v) => (typeof v === 'bigint' ? Number(v) : v))) {
    throw new Error('The sandbox answered other rows than the engine');
  }
  const load = loadavg()[0]!.toFixed(1);
  line(`sandbox user query over ${short(ROWS)} rows, warm (load ${load})`, median(ours) * 1000, 'ms', median(ours) / median(base), '<= 1.2');
  line(`sandbox user query over ${short(ROWS)} rows, first (instance opened and locked) (load ${load})`, cold * 1000, 'ms', cold / median(base), 'printed');
  line(`#45 user SQL in a worker process over ${short(ROWS)} rows vs the in-process sandbox, warm (load ${load})`, median(ours) * 1000, 'ms', median(ours) / median(inProc), '<= 1.2');
  line(`#45 user SQL in a worker process, first query (process started, instance locked) vs the in-process sandbox's first (load ${load})`, cold * 1000, 'ms', cold / firstInProcess, 'printed');
  await sandbox.close();
  await inProcess.close();
  c.closeSync();
  engine.closeSync();
} finally {
  await cleanup();
}
