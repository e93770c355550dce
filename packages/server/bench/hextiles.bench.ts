// Hex tiles (issue 3): building a tileset from BENCH_ROWS points (default 500k; resolutions 6..9, offset 4,
// one day interval, sum/count/mean) as a ratio to DuckDB's plain GROUP BY of the finest cells to Parquet on
// the same engine and file; reading one tile (Arrow) as a ratio to reading 100 rows of a dataset preview
// through the same app. In-process (app.inject, PGlite catalog): the ratios compare work, not the network.
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import { buildStudio } from '../src/app';
import { configFromEnv } from '../src/config';
import { createOrganization, createUser } from '../src/services/users';
import { ZipReader } from '@studio/tiles';

const ROWS = Number(process.env.BENCH_ROWS ?? 500_000);
const load = () => `load ${os.loadavg()[0]!.toFixed(2)}`;
const median = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1]!;
const now = () => performance.now();

const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'hextiles-bench-'));
const studio = await buildStudio({ ...configFromEnv({}), dataDir, databaseUrl: null, secret: 'bench' }, { inMemoryCatalog: true });
try {
  const org = await createOrganization(studio.services.db, 'Bench');
  await createUser(studio.services.db, { email: 'b@bench.test', password: 'correct horse battery staple', organizationId: org.id, role: 'maker' });
  const signIn = await studio.app.inject({ method: 'POST', url: '/v1/auth/sign-in', payload: { email: 'b@bench.test', password: 'correct horse battery staple' } });
  const auth = { authorization: `Bearer ${signIn.json().item.accessToken}` };

  // Points around a city, over a week, written by DuckDB (the CSV is the bench's input, not its subject).
  const csv = path.join(dataDir, 'points.csv');
  await studio.services.engine.query(
    `COPY (SELECT 40.6 + random() * 0.3 AS lat, -74.1 + random() * 0.3 AS lng, round(random() * 100, 2) AS amount,
       TIMESTAMP '2024-01-01' + INTERVAL (i % 604800) SECOND AS ts FROM range(${ROWS}) t(i)) TO '${csv}' (HEADER)`,
  );
  const up = await studio.app.inject({ method: 'POST', url: '/v1/datasets/data?name=points', payload: await fs.readFile(csv), headers: { ...auth, 'content-type': 'text/csv' } });
  const source = up.json().item;
  const sourceFile = await studio.services.engine.store.localPath((await studio.services.records.get(source.id))!.attrs.storageKey as string);

  // Baseline: the finest resolution only, one GROUP BY to Parquet, same engine and H3 functions.
  const t0 = now();
  await studio.services.engine.query(
    `COPY (SELECT lower(hex(h3_latlng_to_cell_u64(lat, lng, 9))) AS hex, sum(amount), count(*), avg(amount) FROM read_parquet('${sourceFile}') GROUP BY 1) TO '${path.join(dataDir, 'base.parquet')}' (FORMAT parquet)`,
  );
  const baseMs = now() - t0;

  const t1 = now();
  const built = await studio.app.inject({
    method: 'POST', url: '/v1/datasets/hextile', headers: auth,
    payload: {
      source: source.id, sourceLatColumn: 'lat', sourceLngColumn: 'lng', sourceTimeColumn: 'ts', timeIntervals: ['D'],
      finestResolution: 9, coarsestResolution: 6, resolutionOffset: 4,
      outputColumns: [{ sourceColumn: 'amount', targetColumn: 'total', aggMethod: 'sum' }, { targetColumn: 'n', aggMethod: 'count' }, { sourceColumn: 'amount', targetColumn: 'mean', aggMethod: 'mean' }],
    },
  });
  if (built.statusCode !== 201) throw new Error(`build: ${built.statusCode} ${built.body}`);
  const answerMs = now() - t1;
  // The call answers at once; the build is a background job, timed until it ends.
  const { job } = built.json();
  for (;;) {
    const status = (await studio.app.inject({ method: 'GET', url: `/v1/jobs/${job.id}`, headers: auth })).json().item.status;
    if (status === 'succeeded') break;
    if (status === 'failed' || status === 'cancelled') throw new Error(`build job ${status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const buildMs = now() - t1;
  const tiles = (await studio.app.inject({ method: 'GET', url: `/v1/datasets/${built.json().item.id}`, headers: auth })).json().item;
  console.log(`hextile build answer: ${answerMs.toFixed(0)} ms (the job runs after it)`);
  console.log(`hextile build: ${((ROWS / buildMs) * 1000).toFixed(0)} rows/s, ${(buildMs / 1000).toFixed(2)} s for ${ROWS} rows, ${tiles.metadata.byteSize} bytes (ratio ${(buildMs / baseMs).toFixed(2)} vs one GROUP BY of res 9 to Parquet, ${baseMs.toFixed(0)} ms; target 8; ${load()})`);
  // What the Arrow twins of the all-time tiles (#17: served as stored bytes) add to the archive.
  const archive = (await fs.readdir(dataDir, { recursive: true })).find((f) => f.endsWith('.zip') && f.includes(built.json().item.id));
  if (archive) {
    const entries = [...(await ZipReader.open(path.join(dataDir, archive))).entries.values()];
    const bytes = (pick: (name: string) => boolean) => entries.filter((e) => pick(e.name)).reduce((sum, e) => sum + e.compressed, 0);
    const twins = bytes((n) => n.startsWith('arrow/'));
    const parquet = bytes((n) => n.endsWith('.parquet'));
    console.log(`hextile archive: ${tiles.metadata.byteSize} bytes; Arrow twins ${twins} bytes (${((100 * twins) / tiles.metadata.byteSize).toFixed(1)}%, ${(twins / parquet).toFixed(2)} of the Parquet entries' ${parquet} bytes, time steps included)`);
  }

  const index = (await studio.app.inject({ method: 'GET', url: `/v1/tileset/${tiles.id}/tileset-index`, headers: auth })).json().item;
  const finest = Object.entries(index.tiles[5] as Record<string, number>);
  const tileTimes: number[] = [];
  const previewTimes: number[] = [];
  for (let i = 0; i < 200; i++) {
    const [tile] = finest[i % finest.length]!;
    let t = now();
    const r = await studio.app.inject({ method: 'GET', url: `/v1/tileset/${tiles.id}/5/${tile}`, headers: auth });
    tileTimes.push(now() - t);
    if (r.statusCode !== 200) throw new Error(`tile: ${r.statusCode}`);
    t = now();
    await studio.app.inject({ method: 'GET', url: `/v1/datasets/${source.id}/preview?limit=100&offset=${i * 100}`, headers: auth });
    previewTimes.push(now() - t);
  }
  const cells = finest.reduce((s, [, n]) => s + n, 0) / finest.length;
  console.log(`hextile tile read: ${median(tileTimes).toFixed(2)} ms median, ${cells.toFixed(0)} cells a tile (ratio ${(median(tileTimes) / median(previewTimes)).toFixed(2)} vs a 100-row preview page, ${median(previewTimes).toFixed(2)} ms; target 3; ${load()})`);
} finally {
  await studio.close();
  await fs.rm(dataDir, { recursive: true, force: true });
}
