// #49 route contracts: (1) a 20-record list answer written by the serializer Fastify builds from its contract's
// JSON Schema (http/answer-schema.ts) against JSON.stringify of the same records, in the same process, alternating,
// median (target <= 1.0); (2) the authenticated dataset list with the list cache off as a ratio to /v1/health on
// PostgreSQL (before the contracts: 0.14-0.17); (3) the server's start time (buildStudio + listen) and RSS.
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import autocannon from 'autocannon';
import fastJson from 'fast-json-stringify';
import { StudioRecord, itemsOf } from '@studio/schema';
import { answerSerializationSchema } from '../src/http/answer-schema';
import { buildStudio } from '../src/app';
import { configFromEnv } from '../src/config';
import { createOrganization, createUser } from '../src/services/users';
import { benchCatalog } from './catalog';
import { discardBodies } from './load-client';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const load = () => os.loadavg()[0]!.toFixed(1);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function serialization(): void {
  const id = '6f1c0e0a-5b7a-4f7e-9f3a-1a2b3c4d5e6f';
  const record = (i: number) => ({
    id, type: 'map', name: `Map ${i}`, description: 'A map of the bench', ownerId: id, owner: { id, name: 'Bench', email: 'bench@studio.test' },
    organizationId: i % 2 ? null : id, visibility: 'private', isSample: false, importSource: null, latestState: { version: 'v1', config: { i, layers: [1, 2, 3] } },
    datasets: [{ id, name: 'Points' }], mapAssets: { mapStyles: [], colorPalettes: [] }, tags: [], lock: null, access: 'owner', thumbnailUrl: null,
    createdAt: '2026-12-02T04:00:00.000Z', updatedAt: '2026-12-02T04:00:00.000Z',
  });
  const answer = { items: Array.from({ length: 20 }, (_, i) => record(i)), total: 20 };
  const write = fastJson(answerSerializationSchema(itemsOf(StudioRecord)) as Parameters<typeof fastJson>[0]);
  if (JSON.stringify(JSON.parse(write(answer))) !== JSON.stringify(answer)) throw new Error('the serializer wrote another answer');
  const N = 2_000;
  const run = (f: () => unknown) => {
    const t0 = performance.now();
    for (let i = 0; i < N; i++) f();
    return (performance.now() - t0) / N;
  };
  const ours: number[] = [];
  const base: number[] = [];
  for (let round = 0; round < 15; round++) {
    base.push(run(() => JSON.stringify(answer)));
    ours.push(run(() => write(answer)));
  }
  const [o, b] = [median(ours), median(base)];
  console.log(`contracts: a 20-record list answer written from its contract: ${(o * 1000).toFixed(1)} µs (ratio ${(o / b).toFixed(2)} vs JSON.stringify ${(b * 1000).toFixed(1)} µs; target <= 1.0; load ${load()})`);
}

async function measure(url: string, headers: Record<string, string>): Promise<number> {
  const result = await autocannon({ url, connections: 50, duration: SECONDS, headers, workers: 1, setupClient: discardBodies });
  if (result.non2xx > 0) throw new Error(`${url}: ${result.non2xx} non-2xx answers`);
  return result.requests.average;
}

async function server(): Promise<void> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'studio-bench-'));
  const { databaseUrl, drop } = await benchCatalog('postgres');
  const rssBefore = process.memoryUsage().rss;
  const t0 = performance.now();
  const studio = await buildStudio({ ...configFromEnv({}), dataDir, databaseUrl, secret: 'bench', webDir: null, listCacheEntries: 0 }, { inMemoryCatalog: true });
  try {
    const address = await studio.app.listen({ port: 0, host: '127.0.0.1' });
    const started = performance.now() - t0;
    console.log(`contracts: server start (buildStudio + listen, PostgreSQL catalog): ${started.toFixed(0)} ms; RSS ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB (+${((process.memoryUsage().rss - rssBefore) / 2 ** 20).toFixed(0)} MB for the studio; load ${load()})`);
    const org = await createOrganization(studio.services.db, 'Bench');
    await createUser(studio.services.db, { email: 'bench@studio.test', password: 'bench-password', organizationId: org.id });
    const signIn = await fetch(`${address}/v1/auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'bench@studio.test', password: 'bench-password' }) });
    const token = ((await signIn.json()) as { item: { accessToken: string } }).item.accessToken;
    const auth = { authorization: `Bearer ${token}` };
    for (let i = 0; i < 50; i++) {
      await fetch(`${address}/v1/datasets/data?name=Dataset%20${i}`, { method: 'POST', headers: { ...auth, 'content-type': 'text/csv' }, body: `name,lat,lng\nP${i},52.5,13.4\n` });
    }
    const health = await measure(`${address}/v1/health`, {});
    const datasets = await measure(`${address}/v1/datasets?limit=20`, auth);
    console.log(`contracts: GET /v1/datasets (authenticated, 20 of 50, list cache off): ${datasets.toFixed(0)} req/s (ratio ${(datasets / health).toFixed(2)} vs /v1/health ${health.toFixed(0)} req/s; before the contracts 0.14-0.17; load ${load()})`);
  } finally {
    await studio.close();
    await fs.rm(dataDir, { recursive: true, force: true });
    await drop();
  }
}

serialization();
await server();
