// History (#51) on PGlite and PostgreSQL: a save of a 5 MB map state with 500 versions behind it as a ratio to the
// same save without history (the record service's update with the version hook skipped; target ≤ 1.1), opening the
// version just before a full state (the longest delta chain) as a ratio to opening the latest state (≤ 1.5), and the
// catalog's growth per small edit (the stored version's bytes). The baseline runs in the same process, alternating.
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import { HISTORY_FULL_EVERY } from '@studio/schema';
import { line } from '../../engine/bench/util';
import { buildStudio } from '../src/app';
import { configFromEnv } from '../src/config';
import { createOrganization, createUser } from '../src/services/users';
import { storedState } from '../src/services/history';
import type { Caller } from '../src/http/caller';
import { benchCatalog } from './catalog';

const VERSIONS = Number(process.env.BENCH_VERSIONS ?? 500);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);

/** About 5 MB of map state: 1700 layers with kepler's usual config, colour ranges and tooltips. */
function bigState(edit: number) {
  const layers = Array.from({ length: 1700 }, (_, i) => ({
    id: `layer-${i}`,
    type: 'geojson',
    config: {
      dataId: `ds-${i % 20}`,
      label: `Layer ${i}`,
      color: [i % 256, 100, 200],
      columns: { geojson: '_geojson' },
      isVisible: true,
      visConfig: {
        opacity: i === edit % 1700 ? (edit % 100) / 100 : 0.8,
        thickness: 0.5,
        colorRange: { name: 'Global Warming', type: 'sequential', category: 'Uber', colors: Array.from({ length: 120 }, (_, c) => `#${((i * 7919 + c * 104729) % 0xffffff).toString(16).padStart(6, '0')}`) },
        strokeColorRange: { name: 'Ice', colors: Array.from({ length: 60 }, (_, c) => `#${((i * 31 + c * 17) % 0xffffff).toString(16).padStart(6, '0')}`) },
      },
      textLabel: Array.from({ length: 6 }, (_, t) => ({ field: null, color: [255, 255, 255], size: 18, offset: [0, t], anchor: 'start', alignment: 'center' })),
    },
    visualChannels: { colorField: { name: `field_${i}`, type: 'real' }, colorScale: 'quantile', sizeField: null, sizeScale: 'linear' },
  }));
  const tooltip = { fieldsToShow: Object.fromEntries(Array.from({ length: 20 }, (_, d) => [`ds-${d}`, Array.from({ length: 20 }, (_, f) => ({ name: `field_${f}`, format: null }))])) };
  return { studioVersion: 1, kepler: { version: 'v1', config: { visState: { layers, filters: [], interactionConfig: { tooltip: { enabled: true, config: tooltip } } }, mapState: { latitude: 1, longitude: 2, zoom: 3 + (edit % 5) }, mapStyle: { styleType: 'dark' } } } };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

async function benchStore(kind: 'pglite' | 'postgres') {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'studio-bench-'));
  const { databaseUrl, drop } = await benchCatalog(kind);
  const studio = await buildStudio({ ...configFromEnv({}), dataDir, databaseUrl, secret: 'bench', webDir: null }, { inMemoryCatalog: true });
  try {
    const { db, records } = studio.services;
    const org = await createOrganization(db, 'Bench');
    const user = await createUser(db, { email: 'bench@studio.test', organizationId: org.id });
    const caller: Caller = { user, memberships: [], orgIds: [org.id], isAdmin: false, via: 'api-key', credentialId: 'bench' };
    const bytes = JSON.stringify(bigState(0)).length;
    let row = await records.create(caller, 'map', { name: 'Big map', description: '', latestState: bigState(0) });
    for (let i = 1; i < VERSIONS; i++) row = await records.update(caller, row, { latestState: bigState(i) }, { adminMode: false });
    const plain = await records.create(caller, 'map', { name: 'Without history', description: '', latestState: bigState(0) });
    // The baseline: the same update of a record whose type keeps no versions (the hook answers at once).
    let plainRow = { ...plain, type: 'studio-state' };
    const withHistory: number[] = [];
    const without: number[] = [];
    const growth: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const edit = VERSIONS + r;
      const before = await db.selectFrom('record_versions').select((eb) => eb.fn.sum<number>('bytes').as('b')).where('record_id', '=', row.id).executeTakeFirst();
      withHistory.push(await timed(async () => (row = await records.update(caller, row, { latestState: bigState(edit) }, { adminMode: false }))));
      without.push(await timed(async () => (plainRow = { ...(await records.update(caller, plainRow, { latestState: bigState(edit) }, { adminMode: false })), type: 'studio-state' })));
      const after = await db.selectFrom('record_versions').select((eb) => eb.fn.sum<number>('bytes').as('b')).where('record_id', '=', row.id).executeTakeFirst();
      const stored = Number(after?.b) - Number(before?.b);
      if (stored < bytes / 2) growth.push(stored);
    }
    const save = median(withHistory);
    line(`history save of a ${(bytes / 1e6).toFixed(1)} MB map state with ${VERSIONS} versions behind it (${kind})`, save, 'ms', save / median(without), '≤ 1.1');
    // The longest chain: the version just before a full state (full states are versions 1, 21, 41 …).
    const longest = Math.floor((VERSIONS - 1) / HISTORY_FULL_EVERY) * HISTORY_FULL_EVERY;
    const openOld: number[] = [];
    const openLatest: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      openOld.push(await timed(() => storedState(db, row.id, longest)));
      openLatest.push(await timed(() => records.get(row.id)));
    }
    line(`history open of version ${longest} (${HISTORY_FULL_EVERY - 1} deltas after its full state) (${kind})`, median(openOld), 'ms', median(openOld) / median(openLatest), '≤ 1.5');
    console.log(`history catalog growth per small edit (${kind}): ${median(growth)} bytes (one layer's opacity and the zoom changed in a ${bytes} byte state)`);
  } finally {
    await studio.close();
    await drop();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

console.log(`load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
for (const kind of (process.env.BENCH_STORES ?? 'pglite,postgres').split(',') as ('pglite' | 'postgres')[]) await benchStore(kind);
