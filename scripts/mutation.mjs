// `npm run mutation [module…]`: StrykerJS over the modules of stryker/modules.mjs (all when none is named),
// each with its own tests; prints the mutation score per module and writes docs/mutation/<module>.json (every
// mutant: where, what, and whether a test killed it; Stryker's full report stays in reports/mutation/).
// Not part of `npm test` (it takes minutes to hours); run it after changing a scoped module.
import fs from 'node:fs';
import path from 'node:path';
import { run, ROOT } from './lib.mjs';
import { MODULES } from '../stryker/modules.mjs';

// Options (`--concurrency 1`, …) go to Stryker as they are; the other arguments name modules.
const args = process.argv.slice(2);
const strykerOptions = args.flatMap((a, i) => (a.startsWith('--') ? [a, ...(args[i + 1] && !args[i + 1].startsWith('--') ? [args[i + 1]] : [])] : []));
const named = args.filter((a) => !strykerOptions.includes(a));
const names = named.length ? named : Object.keys(MODULES);
const unknown = names.filter((n) => !MODULES[n]);
if (unknown.length) {
  console.error(`Unknown module ${unknown.join(', ')}; modules: ${Object.keys(MODULES).join(', ')}`);
  process.exit(2);
}
const outDir = path.join(ROOT, 'docs', 'mutation');
fs.mkdirSync(outDir, { recursive: true });

/** Killed (and timed out) over all that were tested: Stryker's mutation score of covered code. */
function score(report) {
  const count = {};
  for (const file of Object.values(report.files)) for (const m of file.mutants) count[m.status] = (count[m.status] ?? 0) + 1;
  const killed = (count.Killed ?? 0) + (count.Timeout ?? 0);
  const survived = (count.Survived ?? 0) + (count.NoCoverage ?? 0);
  return { killed, survived, score: killed + survived ? (100 * killed) / (killed + survived) : 100, count };
}

/** The committed report: the score and each mutant in a line, without the sources and test lists Stryker adds. */
function summary(name, report, s) {
  const mutants = [];
  for (const [file, { mutants: ms }] of Object.entries(report.files)) {
    for (const m of ms) {
      if (m.status === 'CompileError') continue;
      mutants.push({ at: `${file}:${m.location.start.line}:${m.location.start.column}`, mutator: m.mutatorName, replacement: m.replacement, status: m.status, killedBy: m.killedBy?.length ?? 0 });
    }
  }
  return { module: name, at: new Date().toISOString().slice(0, 10), score: Number(s.score.toFixed(1)), counts: s.count, mutants };
}

const lines = [];
for (const name of names) {
  const { mutate, tests } = MODULES[name];
  const report = path.join(ROOT, 'reports', 'mutation', `${name}.json`);
  console.log(`\n=== mutation: ${name} (${mutate.join(', ')}) ===`);
  const { code } = await run('stryker', ['run', 'stryker/stryker.config.mjs', '--mutate', mutate.join(','), ...strykerOptions], {
    env: { STRYKER_TESTS: tests.join(','), STRYKER_REPORT: report },
  });
  if (code !== 0 || !fs.existsSync(report)) {
    lines.push(`${name}: Stryker failed (exit ${code})`);
    continue;
  }
  const full = JSON.parse(fs.readFileSync(report, 'utf8'));
  const s = score(full);
  fs.writeFileSync(path.join(outDir, `${name}.json`), `${JSON.stringify(summary(name, full, s), null, 1)}\n`);
  lines.push(`${name}: ${s.score.toFixed(1)}% killed (${s.killed} killed, ${s.survived} survived; ${JSON.stringify(s.count)})`);
}
console.log(`\n${lines.join('\n')}`);
