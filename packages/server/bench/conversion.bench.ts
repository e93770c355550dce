// #45: an upload the format libraries read (FlatGeobuf here: streamed, feature by feature) ingested with its
// conversion in the user-work process (as the server does now) against the same conversion in this process (as
// before). Alternating runs, median of five; the load average is printed on the line. BENCH_ROWS sets the features.
import { writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import path from 'node:path';
import { serialize } from 'flatgeobuf/lib/mjs/geojson.js';
import { Engine, type Converter } from '@studio/engine';
import { line, short, tempDir, time } from '../../engine/bench/util';
import { UserWorkPool } from '../src/services/user-work/supervisor';

const FEATURES = Number(process.env.BENCH_ROWS ?? 0) || 200_000;
const RUNS = 5;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const { dir, cleanup } = await tempDir('conversion-bench-');
try {
  const fgb = path.join(dir, 'points.fgb');
  const features = Array.from({ length: FEATURES }, (_, i) => ({
    type: 'Feature' as const,
    properties: { id: i, name: `place ${i % 977}`, score: (i * 37) % 1000 },
    geometry: { type: 'Point' as const, coordinates: [-125 + ((i * 7919) % 59000) / 1000, 24 + ((i * 104729) % 26000) / 1000] },
  }));
  await writeFile(fgb, serialize({ type: 'FeatureCollection', features } as Parameters<typeof serialize>[0]));

  const pool = new UserWorkPool({ name: 'files', size: 1, dir: path.join(dir, 'workers'), memoryLimit: '64MB', maxInstances: 1, spillLimit: '64MB', memoryCapBytes: 2 ** 30 });
  const isolated: Converter = (format, input, outBase) => pool.run({ op: 'convert', format, input, outBase }, { timeoutMs: 300_000 });
  const here = await Engine.open({ dataDir: path.join(dir, 'here') });
  const there = await Engine.open({ dataDir: path.join(dir, 'there'), convert: isolated });
  const ingest = (engine: Engine, n: number) => engine.ingest({ sourceFile: fgb, contentType: 'application/flatgeobuf', key: `bench/${n}.parquet` });

  await pool.warm();
  const [first] = await time(() => ingest(there, -1));
  const [firstHere] = await time(() => ingest(here, -1));
  const ours: number[] = [];
  const base: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const [b, rb] = await time(() => ingest(here, i));
    const [o, ro] = await time(() => ingest(there, i));
    if (rb.rowCount !== FEATURES || ro.rowCount !== FEATURES) throw new Error(`row counts ${rb.rowCount} and ${ro.rowCount}, not ${FEATURES}`);
    base.push(b);
    ours.push(o);
  }
  const load = loadavg()[0]!.toFixed(1);
  line(`#45 FlatGeobuf upload of ${short(FEATURES)} features, read in the worker process vs in the API process (load ${load})`, median(ours) * 1000, 'ms', median(ours) / median(base), '<= 1.1');
  line(`#45 the same, first upload after the worker started (load ${load})`, first * 1000, 'ms', first / firstHere, 'printed');
  await pool.close();
  here.close();
  there.close();
} finally {
  await cleanup();
}
