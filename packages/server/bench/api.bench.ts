// Authenticated GET /v1/maps and GET /v1/datasets throughput as ratios to GET /v1/health in the same run, on PGlite
// and on PostgreSQL (targets: maps >= 0.25 on PostgreSQL; #20: datasets >= 0.35 on PostgreSQL with the list cache off). BENCH_SECONDS sets each measurement's length.
// The studio as it runs (list answers kept per catalog version) is the figure; the same list with the
// list cache off (STUDIO_LIST_CACHE_ENTRIES=0) is printed beside it, measured in the same run.
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import autocannon from 'autocannon';
import { buildStudio } from '../src/app';
import { configFromEnv } from '../src/config';
import { createOrganization, createUser } from '../src/services/users';
import { benchCatalog } from './catalog';
import { discardBodies } from './load-client';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);

async function measure(url: string, headers: Record<string, string>): Promise<number> {
  // The load runs in a worker thread of its own: on the server's event loop, the client's reading of a 28 KB list
  // a thousand times a second was counted as the list's cost (and not as /health's, whose answer is 61 bytes).
  const result = await autocannon({ url, connections: 50, duration: SECONDS, headers, workers: 1, setupClient: discardBodies });
  if (result.non2xx > 0) throw new Error(`${url}: ${result.non2xx} non-2xx answers`);
  return result.requests.average;
}

async function benchStore(kind: 'pglite' | 'postgres', listCacheEntries: number) {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'studio-bench-'));
  const { databaseUrl, drop } = await benchCatalog(kind);
  const studio = await buildStudio({ ...configFromEnv({}), dataDir, databaseUrl, secret: 'bench', webDir: null, listCacheEntries }, { inMemoryCatalog: true });
  try {
    const org = await createOrganization(studio.services.db, 'Bench');
    await createUser(studio.services.db, { email: 'bench@studio.test', password: 'bench-password', organizationId: org.id });
    const address = await studio.app.listen({ port: 0, host: '127.0.0.1' });
    const signIn = await fetch(`${address}/v1/auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'bench@studio.test', password: 'bench-password' }) });
    const token = ((await signIn.json()) as { item: { accessToken: string } }).item.accessToken;
    const auth = { authorization: `Bearer ${token}` };
    for (let i = 0; i < 50; i++) {
      await fetch(`${address}/v1/maps`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ name: `Map ${i}`, latestState: { version: 'v1', config: { i } } }) });
    }
    for (let i = 0; i < 50; i++) {
      await fetch(`${address}/v1/datasets/data?name=Dataset%20${i}`, { method: 'POST', headers: { ...auth, 'content-type': 'text/csv' }, body: `name,lat,lng\nP${i},52.5,13.4\n` });
    }
    const health = await measure(`${address}/v1/health`, {});
    const maps = await measure(`${address}/v1/maps?limit=20`, auth);
    const datasets = await measure(`${address}/v1/datasets?limit=20`, auth);
    const mode = listCacheEntries > 0 ? 'list cache on (as shipped)' : 'list cache off';
    console.log(`api ${kind} [${mode}] GET /v1/health: ${health.toFixed(0)} req/s (baseline)`);
    console.log(`api ${kind} [${mode}] GET /v1/maps (authenticated, 20 of 50 maps): ${maps.toFixed(0)} req/s (ratio ${(maps / health).toFixed(2)} vs health; target >= 0.25 on postgres)`);
    console.log(`api ${kind} [${mode}] GET /v1/datasets (authenticated, 20 of 50 datasets): ${datasets.toFixed(0)} req/s (ratio ${(datasets / health).toFixed(2)} vs health; target >= 0.35 on postgres with the list cache off)`);
  } finally {
    await studio.close();
    await fs.rm(dataDir, { recursive: true, force: true });
    await drop();
  }
}

for (const kind of ['pglite', 'postgres'] as const) {
  await benchStore(kind, 10_000);
  await benchStore(kind, 0);
}
