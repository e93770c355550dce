// The vector tiler as it was when #16 was filed (commit 9d41c93, 2026-11-21: the end of wave 1), kept as the
// baseline the tiling bench compares today's tiler with. It is read from git, not copied into the tree: its
// tiler.ts and pmtiles-writer.ts as they were then, written to .bench/ (ignored) with their imports of the
// modules that have not changed since pointed at today's sources. Needs the repository's history (a clone, not
// an export): without it the bench prints today's time alone.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { buildTiles } from '@studio/tiles';

export const BASELINE_COMMIT = '9d41c93';
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');
/** Where the tiler was then, and where its modules are today (packages/tiles since #49). */
const SOURCES = 'packages/server/src/services/vector-tiles';
const TODAY = 'packages/tiles/src/vector-tiles';
/** Files taken as they were; every other relative import points at today's module of the same name. */
const KEPT = ['tiler', 'pmtiles-writer'];

/** The baseline's buildTiles, or null (with the reason) when the history is not there. */
export async function baselineTiler(): Promise<{ buildTiles: typeof buildTiles } | { missing: string }> {
  const out = path.join(root, '.bench', `tiler-${BASELINE_COMMIT}`);
  try {
    fs.mkdirSync(out, { recursive: true });
    for (const name of KEPT) {
      const source = execFileSync('git', ['show', `${BASELINE_COMMIT}:${SOURCES}/${name}.ts`], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      const rewritten = source.replace(/from '\.\/([\w-]+)'/g, (whole, module: string) => (KEPT.includes(module) ? whole : `from '${path.relative(out, path.join(root, TODAY, module)).split(path.sep).join('/')}'`));
      fs.writeFileSync(path.join(out, `${name}.ts`), rewritten);
    }
  } catch (e) {
    return { missing: `the baseline tiler (git show ${BASELINE_COMMIT}) could not be read: ${(e as Error).message.split('\n')[0]}` };
  }
  return (await import(pathToFileURL(path.join(out, 'tiler.ts')).href)) as { buildTiles: typeof buildTiles };
}
