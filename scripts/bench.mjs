// `npm run bench`: every package's benches, one after another (they would disturb each other in
// parallel on two cores). Each prints its figures as ratios against a baseline measured in the same run.
// BENCH_FILTER=<substring> runs only the benches whose path contains it.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, run } from './lib.mjs';

const filter = process.env.BENCH_FILTER ?? '';
const benches = fs
  .readdirSync(path.join(ROOT, 'packages'))
  .flatMap((pkg) => {
    const dir = path.join(ROOT, 'packages', pkg, 'bench');
    return fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.bench.ts')).map((f) => path.join('packages', pkg, 'bench', f)) : [];
  })
  .filter((p) => p.includes(filter));
let failed = 0;
for (const bench of benches) {
  console.log(`\n=== ${bench} ===`);
  const { code } = await run('tsx', [bench]);
  if (code !== 0) failed++;
}
process.exit(failed ? 1 : 0);
