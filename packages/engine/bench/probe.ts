import path from 'node:path';
import { Engine } from '../src';
import { tempDir, time, writeCsv } from './util';
const { dir, cleanup } = await tempDir('engine-probe-');
const engine = await Engine.open({ dataDir: dir });
const csv = path.join(dir, 'eight.csv');
await writeCsv(csv, 1_000_000);
await engine.ingest({ sourceFile: csv, contentType: 'text/csv', key: 'eight.parquet' });
const ts: number[] = [];
for (let k = 0; k < 8; k++) { const [t] = await time(async () => { let b = 0; for await (const x of engine.arrowStream('eight.parquet')) b += x.length; return b; }); ts.push(t); }
console.log(ts.map((x) => x.toFixed(3)).join(' '));
engine.close(); await cleanup();
