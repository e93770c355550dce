// Dashboards (#13): a dashboard of 8 widgets over a BENCH_DASHBOARD_ROWS-row dataset (default 1M).
// (1) Server time for the 8 widget queries (one batch request, as the page sends), cold (Cache-Control: no-cache), as a ratio to the same 8 queries
//     written by hand in DuckDB SQL on the same Parquet file and engine, in the same run (target <= 1.3).
// (2) A cross-filter change (category = cat_3), all 8 answered, against the hand SQL with that WHERE (<= 1.3).
// (3) The published dashboard's first complete render in Chromium (every widget ready), printed with the load.
// Each ratio is the median over BENCH_DASHBOARD_RUNS runs (default 9) of each run's studio time over the hand
// time measured right after it (paired, so a slower stretch of this noisy machine weighs on both sides alike);
// the milliseconds printed are each side's median.
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import { DASHBOARD_STATE_VERSION, type DashboardState, type Widget } from '@studio/schema';
import { buildStudio } from '../src/app';
import { configFromEnv } from '../src/config';
import { createOrganization, createUser } from '../src/services/users';
import { writeCsv, short } from '../../engine/bench/util';
import { launchBrowser, openStudio } from '../../web/e2e/browser';

const ROWS = Number(process.env.BENCH_DASHBOARD_ROWS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_DASHBOARD_RUNS ?? 9);
const WEB_DIR = path.resolve(import.meta.dirname, '../../web/dist');
const load = () => `load ${os.loadavg()[0]!.toFixed(2)}`;
const median = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1]!;

const OPTIONS = { numberFormat: 'number', decimals: 0 } as const;
const base = { parameterIds: [] as string[], options: OPTIONS, title: '' };
const q = (datasetId: string, extra: Record<string, unknown>) => ({ datasetId, dimensions: [], measures: [], columns: [], filters: [], limit: 1000, ...extra });

/** The 8 widgets, and the SQL an analyst would write for each (T: the dataset's Parquet file). */
function widgetsOf(datasetId: string): { widget: Widget; sql: string }[] {
  const w = (id: string, kind: Widget['kind'], query: Record<string, unknown>, sql: string) => ({ widget: { ...base, id, kind, title: id, query: q(datasetId, query) } as Widget, sql });
  return [
    w('count-by-category', 'bar', { dimensions: ['category'], measures: [{ fn: 'count' }] }, 'SELECT category, count(*) AS count FROM T WHERE $W GROUP BY category ORDER BY count DESC, category LIMIT 1000'),
    w('sum-by-category', 'pie', { dimensions: ['category'], measures: [{ fn: 'sum', column: 'n2' }] }, 'SELECT category, sum(n2) AS sum_n2 FROM T WHERE $W GROUP BY category ORDER BY sum_n2 DESC, category LIMIT 1000'),
    w('monthly', 'line', { dimensions: ['ts'], measures: [{ fn: 'count' }], timeUnit: 'month' }, "SELECT date_trunc('month', ts) AS ts, count(*) AS count FROM T WHERE $W GROUP BY 1 ORDER BY 1 LIMIT 1000"),
    w('total', 'kpi', { measures: [{ fn: 'sum', column: 'n1' }], limit: 1 }, 'SELECT sum(n1) AS sum_n1 FROM T WHERE $W LIMIT 1'),
    w('average', 'kpi', { measures: [{ fn: 'avg', column: 'n2' }], limit: 1 }, 'SELECT avg(n2) AS avg_n2 FROM T WHERE $W LIMIT 1'),
    w('histogram', 'histogram', { dimensions: ['n2'], measures: [{ fn: 'count' }], binWidth: 10 }, 'SELECT floor(n2 / 10) * 10 AS n2, count(*) AS count FROM T WHERE $W GROUP BY 1 ORDER BY 1 LIMIT 1000'),
    w('heatmap', 'heatmap', { dimensions: ['category', 'n3'], measures: [{ fn: 'max', column: 'n4' }] }, 'SELECT category, n3, max(n4) AS max_n4 FROM T WHERE $W GROUP BY 1, 2 ORDER BY 1, 2 LIMIT 1000'),
    w('rows', 'table', { columns: ['category', 'n1', 'n2'] }, 'SELECT category, n1, n2 FROM T WHERE $W LIMIT 100; SELECT count(*) FROM T WHERE $W'),
  ];
}

async function main() {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'studio-dash-bench-'));
  const webDir = (await fs.stat(path.join(WEB_DIR, 'index.html')).catch(() => null)) ? WEB_DIR : null;
  const studio = await buildStudio({ ...configFromEnv({}), dataDir, databaseUrl: null, secret: 'bench', webDir }, { inMemoryCatalog: true });
  try {
    const org = await createOrganization(studio.services.db, 'Bench');
    await createUser(studio.services.db, { email: 'bench@studio.test', password: 'bench-password', organizationId: org.id });
    const address = await studio.app.listen({ port: 0, host: '127.0.0.1' });
    const signIn = await fetch(`${address}/v1/auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'bench@studio.test', password: 'bench-password' }) });
    const auth = { authorization: `Bearer ${((await signIn.json()) as { item: { accessToken: string } }).item.accessToken}` };
    const api = async (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => {
      const res = await fetch(`${address}${url}`, { method, headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
      if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
      return res.json() as Promise<{ item: { id: string } }>;
    };

    const csv = path.join(dataDir, 'rows.csv');
    await writeCsv(csv, ROWS);
    const upload = await fetch(`${address}/v1/datasets/data?name=Bench`, { method: 'POST', headers: { ...auth, 'content-type': 'text/csv' }, body: await fs.readFile(csv), duplex: 'half' } as RequestInit);
    const datasetId = ((await upload.json()) as { item: { id: string } }).item.id;
    // The Arrow copy written after ingestion would otherwise compete with the first measured runs.
    await studio.services.datasets.arrowCopySettled(datasetId);
    const row = await studio.services.records.get(datasetId);
    const parquet = await studio.services.engine.store.localPath((row!.attrs as { storageKey: string }).storageKey);
    const table = `read_parquet('${parquet.replaceAll("'", "''")}')`;

    const cases = widgetsOf(datasetId);
    const state: DashboardState = {
      version: DASHBOARD_STATE_VERSION,
      widgets: cases.map((c) => c.widget),
      parameters: [],
      layout: cases.map((c, n) => ({ i: c.widget.id, x: (n % 2) * 6, y: Math.floor(n / 2) * 8, w: 6, h: 8 })),
    };
    const dash = await api('POST', '/v1/dashboards', { name: 'Bench dashboard', latestState: state });

    /** The 8 widgets in one batch request, as the page asks for them; cold: the widget cache is bypassed. */
    const widgets = async (crossFilters: unknown[]) => {
      const t0 = performance.now();
      const res = await fetch(`${address}/v1/dashboards/${dash.item.id}/widgets/query`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', 'cache-control': 'no-cache' },
        body: JSON.stringify({ crossFilters, widgets: cases.map((c) => ({ id: c.widget.id })) }),
      });
      const lines = (await res.text()).trim().split('\n').map((l) => JSON.parse(l) as { error?: unknown });
      if (res.status !== 200 || lines.length !== cases.length || lines.some((l) => l.error)) throw new Error(`widget batch: ${res.status} ${JSON.stringify(lines)}`);
      return performance.now() - t0;
    };
    /** The same 8 by hand, at once, on the studio's own DuckDB engine; the clicked widget (`clicked`) is not filtered by its own click. */
    const hand = async (where: string, clicked?: string) => {
      const t0 = performance.now();
      await Promise.all(cases.flatMap((c) => c.sql.split('; ').map((sql) => studio.services.engine.query(sql.replaceAll('FROM T', `FROM ${table}`).replaceAll('$W', c.widget.id === clicked ? 'true' : where)))));
      return performance.now() - t0;
    };
    await widgets([]); // the first run opens the Parquet file and warms the process, for both sides alike
    await hand('true');

    const cold = { studio: [] as number[], hand: [] as number[] };
    const cross = { studio: [] as number[], hand: [] as number[] };
    const click = [{ widgetId: 'count-by-category', column: 'category', value: 'cat_3' }];
    for (let i = 0; i < RUNS; i++) {
      // Which side goes first alternates, so neither always finds what the other just warmed.
      const pair = async (s: { studio: number[]; hand: number[] }, studioRun: () => Promise<number>, handRun: () => Promise<number>) => {
        if (i % 2) s.hand.push(await handRun());
        s.studio.push(await studioRun());
        if (!(i % 2)) s.hand.push(await handRun());
      };
      await pair(cold, () => widgets([]), () => hand('true'));
      await pair(cross, () => widgets(click), () => hand("category = 'cat_3'", 'count-by-category'));
    }
    if (process.env.BENCH_DASHBOARD_PROFILE) {
      const { Session } = await import('node:inspector/promises');
      const ses = new Session();
      ses.connect();
      await ses.post('Profiler.enable');
      await ses.post('Profiler.start');
      for (let i = 0; i < 40; i++) await widgets([{ widgetId: 'count-by-category', column: 'category', value: 'cat_3' }]);
      const { profile } = await ses.post('Profiler.stop');
      await fs.writeFile(process.env.BENCH_DASHBOARD_PROFILE, JSON.stringify(profile));
    }
    if (process.env.BENCH_DASHBOARD_DETAIL === '1') {
      // Each widget alone, one after another: where the difference is.
      for (const c of cases) {
        const t0 = performance.now();
        for (let i = 0; i < 3; i++) await api('POST', `/v1/dashboards/${dash.item.id}/widgets/${c.widget.id}/query`, {}, { 'cache-control': 'no-cache' });
        const t1 = performance.now();
        for (let i = 0; i < 3; i++) for (const sql of c.sql.split('; ')) await studio.services.engine.query(sql.replaceAll('FROM T', `FROM ${table}`).replaceAll('$W', 'true'));
        console.log(`  ${c.widget.id}: ${((t1 - t0) / 3).toFixed(1)} ms vs ${((performance.now() - t1) / 3).toFixed(1)} ms by hand`);
      }
    }
    const ratio = (s: { studio: number[]; hand: number[] }) => median(s.studio.map((t, i) => t / s.hand[i]!)).toFixed(2);
    if (process.env.BENCH_DASHBOARD_DETAIL === '1') for (const [name, s] of Object.entries({ cold, cross })) console.log(`  ${name}: ${s.studio.map((t, i) => `${Math.round(t)}/${Math.round(s.hand[i]!)}`).join(' ')}`);
    console.log(`dashboard of 8 widgets over ${short(ROWS)} rows, cold: ${ratio(cold)}x hand-written DuckDB SQL (target <= 1.3; ${Math.round(median(cold.studio))} ms vs ${Math.round(median(cold.hand))} ms, ${load()})`);
    console.log(`cross-filter change, all 8 answered: ${ratio(cross)}x hand SQL (target <= 1.3; ${Math.round(median(cross.studio))} ms vs ${Math.round(median(cross.hand))} ms, ${load()})`);

    if (!webDir) {
      console.log('published dashboard first render: skipped (no built web app in packages/web/dist; `npm run build` first)');
      return;
    }
    await api('POST', `/v1/insights/${dash.item.id}/publish/resources`, { uploadOptions: {} });
    const browser = await launchBrowser();
    try {
      const renders: number[] = [];
      for (let i = 0; i < 3; i++) {
        const { page, context } = await openStudio(browser, address);
        const t0 = performance.now();
        await page.goto(`${address}/public/dashboard/${dash.item.id}`);
        await page.waitForFunction((n) => document.querySelectorAll('.widget-body [data-state="ready"]').length === n, cases.length, { timeout: 120_000 });
        renders.push(performance.now() - t0);
        await context.close();
      }
      console.log(`published dashboard first complete render (8 widgets, ${short(ROWS)} rows): median ${Math.round(median(renders))} ms of ${renders.map(Math.round).join(', ')} (first cold, then cached; ${load()}, ${os.cpus().length} cores)`);
    } finally {
      await browser.close();
    }
  } finally {
    await studio.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

await main();
