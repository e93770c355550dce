/**
 * GIS downloads of points against the CSV download of the same rows, same process, each pair run back to back
 * (#48: ratio <= 5, peak RSS growth printed: a download holds no more memory than CSV's), and GeoPackage ingest
 * against the same points as FlatGeobuf (<= 1.5). BENCH_ROWS=n replaces the 1M points; BENCH_FORMATS=shapefile,gpkg
 * runs only those download lines (and the ingest pair only when both gpkg and flatgeobuf ran).
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { loadavg } from 'node:os';
import path from 'node:path';
import { Engine, type ExportFormat } from '../src';
import { BENCH_ROWS, line, short, tempDir, time } from './util';

const rows = BENCH_ROWS || 1_000_000;
const { dir, cleanup } = await tempDir('engine-bench-downloads-');

/** The peak of RSS above its level at the start while `fn` runs (sampled every 20 ms), in MB. */
async function peakGrowth<T>(fn: () => Promise<T>): Promise<[number, T]> {
  global.gc?.();
  const start = process.memoryUsage.rss();
  let peak = start;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
  try {
    const r = await fn();
    peak = Math.max(peak, process.memoryUsage.rss());
    return [(peak - start) / 2 ** 20, r];
  } finally {
    clearInterval(timer);
  }
}

try {
  const engine = await Engine.open({ dataDir: dir });
  const points = path.join(dir, 'points.parquet');
  await engine.query(`COPY (SELECT i AS id, 'cat_' || (i % 12) AS category, (hash(i) % 1000) / 10.0 AS score,
      40 + (hash(i) % 100000) / 100000.0 AS lat, -74 + (hash(i + 1) % 100000) / 100000.0 AS lng
    FROM range(${rows}) t(i)) TO '${points}' (FORMAT parquet)`);
  const opts = { location: { latitude: 'lat', longitude: 'lng' }, shape: { columns: ['id', 'category', 'score', 'lat', 'lng'], rowCount: rows } };
  /** A download written to a file (as a client saves it): seconds, bytes. */
  const download = (format: ExportFormat, out = path.join(dir, `out.${format}`)) =>
    time(async () => {
      const file = createWriteStream(out);
      let bytes = 0;
      for await (const chunk of engine.exportFileStream(points, format, opts)) {
        bytes += chunk.length;
        if (!file.write(chunk)) await once(file, 'drain');
      }
      file.end();
      await once(file, 'close');
      return bytes;
    });
  const only = process.env.BENCH_FORMATS?.split(',');
  const formats = (['gpkg', 'shapefile', 'flatgeobuf'] as const).filter((f) => !only || only.includes(f));
  // Three pairs a format, alternating, medians (and the largest RSS growth): one pair swung 3.1-5.5 on a machine
  // at load 3-5, as either side met the machine busy or a first-use cost (the SQLite worker's start).
  const PAIRS = 3;
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const format of formats) {
    const csvTimes: number[] = [];
    const times: number[] = [];
    let csvRss = 0;
    let rss = 0;
    let bytes = 0;
    for (let i = 0; i < PAIRS; i++) {
      const [cr, [ct]] = await peakGrowth(() => download('csv'));
      const [r, [t, b]] = await peakGrowth(() => download(format, path.join(dir, `points.${format}`)));
      csvTimes.push(ct);
      times.push(t);
      csvRss = Math.max(csvRss, cr);
      rss = Math.max(rss, r);
      bytes = b;
    }
    const [csvTime, seconds] = [median(csvTimes), median(times)];
    line(`download ${format} ${short(rows)} points`, rows / seconds, 'rows/s', seconds / csvTime, '<= 5 (#48, time vs the CSV download)');
    console.log(`  (csv ${csvTime.toFixed(2)} s, peak RSS +${csvRss.toFixed(0)} MB; ${format} ${seconds.toFixed(2)} s, ${(bytes / 2 ** 20).toFixed(0)} MB, peak RSS +${rss.toFixed(0)} MB; load ${loadavg()[0]!.toFixed(2)})`);
  }
  // Ingest of the same points, from the files the downloads above wrote: both readers stream into Parquet parts
  // (formats/feature-parts.ts), so the pair is timed at the full count (the FlatGeobuf reader's GeoJSON used to
  // run DuckDB's read_json out of memory at 1M points).
  const ingest = (format: ExportFormat, contentType: string) =>
    peakGrowth(() => time(() => engine.ingest({ sourceFile: path.join(dir, `points.${format}`), contentType, key: `bench/${format}.parquet` })));
  if (formats.includes('gpkg') && formats.includes('flatgeobuf')) {
  const [fgbRss, [fgb, fr]] = await ingest('flatgeobuf', 'application/flatgeobuf');
  const [gpkgRss, [gpkg, gr]] = await ingest('gpkg', 'application/geopackage+sqlite3');
  if (fr.rowCount !== rows || gr.rowCount !== rows) throw new Error(`row counts ${fr.rowCount}, ${gr.rowCount} != ${rows}`);
  line(`ingest gpkg ${short(rows)} points`, rows / gpkg, 'rows/s', gpkg / fgb, '<= 1.5 (#48, time vs the same points as FlatGeobuf)');
  console.log(`  (flatgeobuf ${fgb.toFixed(2)} s, peak RSS +${fgbRss.toFixed(0)} MB; geopackage ${gpkg.toFixed(2)} s, peak RSS +${gpkgRss.toFixed(0)} MB; load ${loadavg()[0]!.toFixed(2)})`);
  }
  engine.close();
} finally {
  await cleanup();
}
