// A load run (#20): 200 connections for 60 s (BENCH_LOAD_SECONDS) of a mixed workload on two API nodes, each its own
// process running workers (the server bundle under node, as the multi-node tests start them), over one PostgreSQL catalog, Redis
// and one S3-compatible object store (test/cluster.ts), as a deployment behind a load balancer runs. Half
// the connections go to each node. The mix is what a team working on maps does: lists, a dataset and its rows, a
// pipeline query, hex tiles and their metadata, map renames (writes), health. Rate-limited routes (sign-in, invitations,
// map passwords, connection tests) are left out, as the issue says. Prints the requests, the errors (must be 0: any
// non-2xx, socket error or timeout fails the run), p50/p99 latency per node and overall, and req/s as a ratio to
// GET /v1/health on the same two nodes measured first in the same process (the machine's own baseline).
// Traffic goes to 127.0.0.1 only.
import autocannon from 'autocannon';
import { startCluster } from '../test/cluster';

const SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 60);
const CONNECTIONS = 200;

type Result = autocannon.Result;
type Request = NonNullable<autocannon.Options['requests']>[number];

/** One autocannon run per node, at the same time, half the connections each. */
async function loadBoth(urls: string[], requestsOf: (node: number) => Request[], headers: Record<string, string>, seconds: number): Promise<Result[]> {
  return Promise.all(
    urls.map((url, node) => autocannon({ url, connections: CONNECTIONS / urls.length, duration: seconds, timeout: 30, headers, requests: requestsOf(node) })),
  );
}

const failures = (r: Result) => r.non2xx + r.errors + r.timeouts;

async function main() {
  const cluster = await startCluster('load');
  try {
    // The first node makes the catalog and the administrator; the second joins it.
    const urls = [(await cluster.start('node-1')).base, (await cluster.start('node-2')).base];
    const signIn = await fetch(`${urls[0]}/v1/auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(cluster.admin) });
    const token = ((await signIn.json()) as { item: { accessToken: string } }).item.accessToken;
    const auth = { authorization: `Bearer ${token}` };
    const api = async (url: string, init: RequestInit = {}) => {
      const res = await fetch(`${urls[0]}${url}`, { ...init, headers: { ...auth, ...(init.headers ?? {}) } });
      if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
      return res.json() as Promise<{ item: { id: string; status: string }; job?: { id: string } }>;
    };

    // What the mix reads: 20,000 points, their hex tiles, 50 maps.
    const lines = ['name,lat,lng,visits'];
    for (let i = 0; i < 20_000; i++) lines.push(`p${i},${(40.7 + (i % 200) / 1000).toFixed(4)},${(-74 + Math.floor(i / 200) / 1000).toFixed(4)},${i % 37}`);
    const dataset = (await api('/v1/datasets/data?name=Points', { method: 'POST', headers: { 'content-type': 'text/csv' }, body: lines.join('\n') })).item.id;
    const tiles = (await api('/v1/datasets/hextile', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Cells', source: dataset, sourceLatColumn: 'lat', sourceLngColumn: 'lng', finestResolution: 9, outputColumns: [{ targetColumn: 'n', aggMethod: 'count' }] }) })).item.id;
    for (let t = Date.now(); (await api(`/v1/datasets/${tiles}`)).item.status !== 'ready'; ) {
      if (Date.now() - t > 120_000) throw new Error('The hex tiles were not built in 2 minutes');
      await new Promise((r) => setTimeout(r, 200));
    }
    const maps: string[] = [];
    for (let i = 0; i < 50; i++) maps.push((await api('/v1/maps', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: `Map ${i}`, datasets: [dataset] }) })).item.id);
    // A tile of the finest zoom: the index lists each zoom's tiles with their cell counts.
    const index = (await (await fetch(`${urls[0]}/v1/tileset/${tiles}/tileset-index`, { headers: auth })).json()) as { item: { tiles: Record<string, Record<string, number>> } };
    const [z, byTile] = Object.entries(index.item.tiles).sort(([a], [b]) => Number(b) - Number(a))[0]!;
    const tilePath = `/v1/tileset/${tiles}/${z}/${Object.keys(byTile)[0]}`;

    const json = { 'content-type': 'application/json' };
    const mix = (node: number): Request[] => {
      let renames = 0;
      const requests: Request[] = [
        { method: 'GET', path: '/v1/maps?limit=20' },
        { method: 'GET', path: `/v1/datasets/${dataset}` },
        { method: 'GET', path: `/v1/datasets/${dataset}/preview?offset=0&limit=100` },
        { method: 'POST', path: '/v1/query?format=json', headers: json, body: JSON.stringify({ type: 'filter', expression: 'visits > 30', input: [{ type: 'dataset', uuid: dataset }] }) },
        { method: 'GET', path: `/v1/tileset/${tiles}/metadata` },
        { method: 'GET', path: tilePath },
        {
          method: 'PUT',
          path: `/v1/maps/${maps[node]}`,
          headers: json,
          // A new name on each save: every write really writes (and drops the lists both nodes keep).
          setupRequest: (req: Request) => ({ ...req, path: `/v1/maps/${maps[(node * 25 + renames) % maps.length]}`, body: JSON.stringify({ name: `Renamed ${node}-${renames++}` }) }),
        },
        { method: 'GET', path: '/v1/health' },
      ];
      return requests;
    };

    const health = await loadBoth(urls, () => [{ method: 'GET', path: '/v1/health' }], {}, Math.max(5, Math.round(SECONDS / 6)));
    const healthRate = health.reduce((n, r) => n + r.requests.average, 0);
    const runs = await loadBoth(urls, mix, auth, SECONDS);
    const total = runs.reduce((n, r) => n + r.requests.total, 0);
    const errors = runs.reduce((n, r) => n + failures(r), 0);
    const rate = runs.reduce((n, r) => n + r.requests.average, 0);
    runs.forEach((r, i) => {
      console.log(`load node ${i + 1}: ${r.requests.total} requests, ${failures(r)} errors (non-2xx ${r.non2xx}, socket ${r.errors}, timeouts ${r.timeouts}), latency p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms`);
    });
    const p99 = Math.max(...runs.map((r) => r.latency.p99));
    console.log(`load: ${CONNECTIONS} connections for ${SECONDS} s on 2 nodes (PostgreSQL, Redis, S3): ${total} requests, ${errors} errors, p99 ${p99} ms (the slower node's)`);
    console.log(`load: ${rate.toFixed(0)} req/s of the mix vs ${healthRate.toFixed(0)} req/s of /v1/health on the same nodes (ratio ${(rate / healthRate).toFixed(2)}); target: 0 errors`);
    if (errors > 0) process.exitCode = 1;
  } finally {
    await cluster.stop();
  }
}

await main();
