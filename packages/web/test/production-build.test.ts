import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { builds, WEB_DIST } from '../../../scripts/builds.mjs';

/**
 * The production bundle (`npm run build`) carries no test code: neither the browser tests' map hooks nor the map
 * bench's baseline page, which only the test build (packages/web/dist-test, src/app/test-hooks.ts) compiles in.
 * Source maps are left out of the reading: the server never serves them.
 */
const TEST_ONLY = ['__studioMap', '__studioMapReady', '__studioTestHooks', 'bench/kepler-csv', 'BaselineCsv'];

const filesOf = (dir: string): string[] => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesOf(path.join(dir, e.name)) : [path.join(dir, e.name)]));

describe('the production build', () => {
  it('holds no test hook name, no bench route and no bench page', async () => {
    // The names are real: each is in the sources (a rename would otherwise leave this test finding nothing forever).
    const sources = filesOf(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src')).map((f) => fs.readFileSync(f, 'utf8')).join('\n');
    for (const name of TEST_ONLY) expect(sources, name).toContain(name);

    await builds({ web: true, server: false, ifStale: true });
    const served = filesOf(WEB_DIST).filter((f) => !f.endsWith('.map'));
    expect(served.length).toBeGreaterThan(10);
    const found = served.flatMap((f) => {
      const text = fs.readFileSync(f, 'latin1');
      return TEST_ONLY.filter((name) => text.includes(name)).map((name) => `${path.relative(WEB_DIST, f)}: ${name}`);
    });
    expect(found).toEqual([]);
  }, 600_000);
});
