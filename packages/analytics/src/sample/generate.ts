import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { badInput, quoteLiteral } from '@studio/schema';
import { AGE_COHORTS, INCOME_COHORTS } from '../params';
import type { PanelTables } from '../sql/common';
import { CATEGORIES, usChains, usCities, usCounties, type City, type County } from './sources';

export interface SamplePanelOptions {
  /** Folder the three Parquet files are written to (created when missing). Trusted: chosen by the caller. */
  dir: string;
  seed?: number;
  /** About this many visits (trips have 1–3 stops, so the count lands within a few percent). */
  visits?: number;
  devices?: number;
  places?: number;
  markets?: number;
  startDate?: string;
  endDate?: string;
  /** An open connection to reuse; otherwise an in-memory DuckDB is opened and closed. */
  connection?: DuckDBConnection;
}

export interface SamplePanel {
  dir: string;
  files: { places: string; devices: string; visits: string };
  /** read_parquet relations of the three files, for runTemplate. */
  tables: PanelTables;
  counts: { places: number; devices: number; visits: number; markets: number };
}

/** mulberry32: small, fast, seedable; the whole panel follows from the seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const DAY_MS = 86_400_000;
const km = (a: { lat: number; lon: number }, b: { lat: number; lon: number }) => {
  const dx = (a.lon - b.lon) * Math.cos(((a.lat + b.lat) / 2) * (Math.PI / 180)) * 111.32;
  const dy = (a.lat - b.lat) * 110.57;
  return Math.hypot(dx, dy);
};
const slug = (s: string) => s.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');

interface Market { idx: number; id: string; name: string; city: City; counties: County[]; weight: number }

/** Market areas: the largest US cities at least 80 km apart, each with the counties whose centre is nearest to it (within 110 km). */
function marketAreas(count: number): Market[] {
  const chosen: City[] = [];
  for (const c of usCities()) {
    if (chosen.length >= count) break;
    if (chosen.every((o) => km(o, c) > 80)) chosen.push(c);
  }
  const markets: Market[] = chosen.map((city, idx) => ({
    idx, city, counties: [], weight: Math.pow(city.population, 0.8),
    id: slug(`${city.name} ${city.adminCode}`), name: `${city.name} market area`,
  }));
  for (const county of usCounties()) {
    let best: Market | undefined;
    let bestKm = 110;
    for (const m of markets) {
      const d = km(m.city, county);
      if (d < bestKm) { bestKm = d; best = m; }
    }
    best?.counties.push(county);
  }
  return markets;
}

function pickWeighted<T>(items: T[], weight: (t: T) => number, r: number): T {
  const total = items.reduce((a, t) => a + weight(t), 0);
  let x = r * total;
  for (const t of items) { x -= weight(t); if (x < 0) return t; }
  return items[items.length - 1]!;
}

function buildPlaces(rand: () => number, markets: Market[], n: number) {
  const chains = usChains();
  // Each category's chains in a seeded order; popularity then falls off Zipf-like along that order.
  const ranked = new Map(CATEGORIES.map((c) => {
    const list = [...(chains.get(c.id) ?? [])].map((x) => ({ x, k: rand() })).sort((a, b) => a.k - b.k).map((e) => e.x).slice(0, 12);
    return [c.id, list];
  }));
  const rows: Record<string, unknown>[] = [];
  const add = (m: Market, cat: (typeof CATEGORIES)[number]) => {
    const list = ranked.get(cat.id) ?? [];
    const chain = list.length > 0 && rand() < 0.75 ? pickWeighted(list.map((c, i) => ({ c, w: 1 / (i + 1) })), (e) => e.w, rand()).c : null;
    const county = m.counties.length > 0 ? m.counties[Math.floor(rand() * m.counties.length)]! : m.city;
    const i = rows.length;
    rows.push({
      place_id: `pl${String(i).padStart(6, '0')}`,
      name: chain ? `${chain.name} #${i}` : `${m.city.name} ${cat.name} ${i}`,
      chain_id: chain?.id ?? null, chain: chain?.name ?? null, category_id: cat.id, category: cat.name,
      latitude: county.lat + (rand() - 0.5) * 0.1, longitude: county.lon + (rand() - 0.5) * 0.1,
      country: 'US', dma_id: m.id, dma_name: m.name, market_idx: m.idx, cat_idx: CATEGORIES.indexOf(cat),
    });
  };
  // Every market gets one place of every category, so that any trip finds a place.
  for (const m of markets) for (const c of CATEGORIES) add(m, c);
  while (rows.length < n) add(pickWeighted(markets, (m) => m.weight, rand()), pickWeighted(CATEGORIES, (c) => c.share, rand()));
  return rows;
}

/** Seasonality (summer and December peaks), weekly rhythm (Fri/Sat busiest) and a slow growth trend. */
function dayWeights(start: string, end: string) {
  const a = Date.parse(`${start}T00:00:00Z`) / DAY_MS, b = Date.parse(`${end}T00:00:00Z`) / DAY_MS;
  const weekday = [1.1, 0.85, 0.9, 0.95, 1.0, 1.2, 1.3]; // Sun..Sat
  const out: { day: string; w: number }[] = [];
  for (let d = a; d <= b; d++) {
    const dt = new Date(d * DAY_MS);
    const doy = (d - Date.UTC(dt.getUTCFullYear(), 0, 1) / DAY_MS) / 365.25;
    const season = 1 + 0.12 * Math.sin(2 * Math.PI * (doy - 0.3)) + (dt.getUTCMonth() === 11 ? 0.15 : 0);
    out.push({ day: dt.toISOString().slice(0, 10), w: season * weekday[dt.getUTCDay()]! * (1 + 0.04 * ((d - a) / 365)) });
  }
  return out;
}

const cumulative = <T>(rows: T[], w: (t: T) => number) => {
  const total = rows.reduce((s, r) => s + w(r), 0);
  let acc = 0;
  return rows.map((r) => { const lo = acc / total; acc += w(r); return { ...r, cum_lo: lo }; });
};

async function loadJson(conn: DuckDBConnection, name: string, rows: unknown[], cols: string) {
  await conn.run(`CREATE OR REPLACE TEMP TABLE ${name} AS SELECT ${cols} FROM (SELECT unnest(CAST(json($1) AS JSON[])) AS j)`, [JSON.stringify(rows)]);
}

/**
 * Generates a deterministic sample panel (places, devices, visits) as Parquet files in `dir`.
 * Places come from real cities, counties and chains; devices and visits are drawn inside DuckDB from
 * seeded hashes, so 20M visits take a minute rather than an hour of per-row JS.
 */
export async function generateSamplePanel(opts: SamplePanelOptions): Promise<SamplePanel> {
  const seed = opts.seed ?? 42;
  const visits = opts.visits ?? 200_000;
  if (!Number.isInteger(seed) || seed < 0 || seed > 2 ** 31) throw badInput('seed must be an integer in [0, 2^31]');
  if (!Number.isInteger(visits) || visits < 1) throw badInput('visits must be a positive integer');
  const nDevices = opts.devices ?? Math.max(50, Math.round(visits / 40));
  const nPlaces = opts.places ?? Math.min(20_000, Math.max(300, Math.round(Math.sqrt(visits) * 4)));
  const nMarkets = Math.max(1, Math.min(opts.markets ?? 25, Math.floor(nPlaces / CATEGORIES.length)));
  const startDate = opts.startDate ?? '2024-01-01';
  const endDate = opts.endDate ?? '2025-12-31';
  mkdirSync(opts.dir, { recursive: true });

  const rand = prng(seed);
  const markets = marketAreas(nMarkets);
  const places = buildPlaces(rand, markets, nPlaces);

  const inst = opts.connection ? undefined : await DuckDBInstance.create(':memory:');
  const conn = opts.connection ?? (await inst!.connect());
  try {
    await loadJson(conn, 'g_places', places, `j->>'place_id' AS place_id, j->>'name' AS name, j->>'chain_id' AS chain_id,
      j->>'chain' AS chain, j->>'category_id' AS category_id, j->>'category' AS category,
      CAST(j->>'latitude' AS DOUBLE) AS latitude, CAST(j->>'longitude' AS DOUBLE) AS longitude, j->>'country' AS country,
      j->>'dma_id' AS dma_id, j->>'dma_name' AS dma_name, CAST(j->>'market_idx' AS INTEGER) AS market_idx, CAST(j->>'cat_idx' AS INTEGER) AS cat_idx`);
    await loadJson(conn, 'g_markets', cumulative(markets.map((m) => ({ idx: m.idx, w: m.weight })), (m) => m.w),
      `CAST(j->>'idx' AS INTEGER) AS market_idx, CAST(j->>'cum_lo' AS DOUBLE) AS cum_lo`);
    await loadJson(conn, 'g_days', cumulative(dayWeights(startDate, endDate), (d) => d.w),
      `CAST(j->>'day' AS DATE) AS day, CAST(j->>'cum_lo' AS DOUBLE) AS cum_lo`);
    // Category mix per hour of day: each category's share times a bell around its busy hour.
    const hourCats = Array.from({ length: 24 }, (_, h) => cumulative(CATEGORIES.map((c, i) => {
      const dh = Math.min(Math.abs(h + 0.5 - c.hour), 24 - Math.abs(h + 0.5 - c.hour));
      return { hour: h, cat_idx: i, dwell: c.dwell, w: c.share * Math.exp(-(dh * dh) / (2 * c.hourSd * c.hourSd)) + 1e-4 };
    }), (e) => e.w)).flat();
    await loadJson(conn, 'g_hour_cats', hourCats, `CAST(j->>'hour' AS INTEGER) AS hour, CAST(j->>'cat_idx' AS INTEGER) AS cat_idx,
      CAST(j->>'dwell' AS DOUBLE) AS dwell, CAST(j->>'cum_lo' AS DOUBLE) AS cum_lo`);
    const hourOfTrip = [0.2, 0.1, 0.05, 0.05, 0.1, 0.4, 1.2, 2.6, 3.6, 3.6, 3.8, 4.6, 5.6, 5.0, 4.4, 4.6, 5.2, 5.8, 5.4, 4.2, 3.0, 2.0, 1.2, 0.6];
    await loadJson(conn, 'g_trip_hours', cumulative(hourOfTrip.map((w, hour) => ({ hour, w })), (e) => e.w),
      `CAST(j->>'hour' AS INTEGER) AS hour, CAST(j->>'cum_lo' AS DOUBLE) AS cum_lo`);

    // u(s, k, i): a uniform in [0, 1) from the seed and a stream (k, i); deterministic for a DuckDB version.
    // hash(a, b, c) combines its arguments' hashes too weakly (streams came out correlated), so the key is
    // packed into one integer and hashed twice around the seed.
    await conn.run(`CREATE OR REPLACE TEMP MACRO mix(s, key) AS hash(xor(hash(key), CAST(s AS UBIGINT)))`);
    await conn.run(`CREATE OR REPLACE TEMP MACRO u(s, k, i) AS CAST(mix(s, CAST(i AS BIGINT) * 128 + k) >> 11 AS DOUBLE) / 9007199254740992.0`);
    await conn.run(`CREATE OR REPLACE TEMP MACRO nrm(s, k, i) AS sqrt(-2 * ln(1 - u(s, k, i))) * cos(2 * pi() * u(s, k + 1, i))`);
    const ages = cumulative(AGE_COHORTS.map((a, i) => ({ a, w: [12, 19, 18, 17, 16, 18][i]! })), (e) => e.w);
    const incomes = cumulative(INCOME_COHORTS.map((a, i) => ({ a, w: [18, 22, 32, 28][i]! })), (e) => e.w);
    const pick = (col: string, rows: { a: string; cum_lo: number }[]) =>
      `CASE ${rows.slice(1).reverse().map((r) => `WHEN ${col} >= ${r.cum_lo} THEN '${r.a}'`).join(' ')} ELSE '${rows[0]!.a}' END`;
    // Devices: cohorts, a home market and a weight (people per device, higher for under-sampled cohorts).
    await conn.run(`CREATE OR REPLACE TEMP TABLE g_devices AS
      WITH d AS (SELECT range AS i, u($1, 1, range) AS ua, u($1, 2, range) AS ug, u($1, 3, range) AS ui, u($1, 4, range) AS um,
        nrm($1, 5, range) AS z FROM range($2))
      SELECT 'dev' || lpad(CAST(i AS VARCHAR), 8, '0') AS device_id, i AS device_idx,
        ${pick('ua', ages)} AS age, CASE WHEN ug < 0.51 THEN 'Female' ELSE 'Male' END AS gender, ${pick('ui', incomes)} AS income,
        round(120 * exp(0.35 * z) * CASE WHEN ua < ${ages[1]!.cum_lo} OR ua >= ${ages[5]!.cum_lo} THEN 1.4 ELSE 1.0 END, 3) AS weight,
        m.market_idx
      FROM d ASOF JOIN g_markets m ON d.um >= m.cum_lo`, [seed, nDevices]);
    await conn.run(`CREATE OR REPLACE TEMP TABLE g_plk AS SELECT place_id, market_idx, cat_idx,
        CAST(row_number() OVER (PARTITION BY market_idx, cat_idx ORDER BY place_id) - 1 AS BIGINT) AS k,
        count(*) OVER (PARTITION BY market_idx, cat_idx) AS n FROM g_places`);
    await conn.run(`CREATE OR REPLACE TEMP TABLE g_plcount AS SELECT DISTINCT market_idx, cat_idx, n FROM g_plk`);

    // Trips: stratified over the day weights (so the file comes out in date order), heavy users via a
    // skewed device draw, 1–3 stops the same day; each stop's category follows its hour, and a device
    // keeps returning to its few favourite places per category (cross-shopping).
    const nTrips = Math.max(1, Math.round(visits / 1.5));
    const visitsFile = join(opts.dir, 'visits.parquet');
    await conn.run(`COPY (
      WITH t AS (SELECT range AS t, (range + u($1, 10, range)) / $2 AS ud, CAST(floor(pow(u($1, 11, range), 1.6) * $3) AS BIGINT) AS device_idx,
          CASE WHEN u($1, 12, range) < 0.6 THEN 1 WHEN u($1, 12, range) < 0.9 THEN 2 ELSE 3 END AS nstops,
          u($1, 13, range) AS uh, u($1, 14, range) AS um FROM range($2)),
        td AS (SELECT t.*, g_days.day FROM t ASOF JOIN g_days ON t.ud >= g_days.cum_lo),
        th AS (SELECT td.*, h.hour * 60 + floor(td.um * 60) AS t0 FROM td ASOF JOIN g_trip_hours h ON td.uh >= h.cum_lo),
        st AS (SELECT th.t, th.day, th.device_idx, s.s, th.t * 3 + s.s AS sid,
            least(th.t0 + s.s * (45 + 60 * u($1, 20, th.t * 3 + s.s)), 1439) AS mins
          FROM th JOIN range(3) s(s) ON s.s < th.nstops),
        sc AS (SELECT st.*, CAST(floor(mins / 60) AS INTEGER) AS hour, u($1, 21, sid) AS uc FROM st),
        scc AS (SELECT sc.*, hc.cat_idx, hc.dwell FROM sc ASOF JOIN g_hour_cats hc ON sc.hour = hc.hour AND sc.uc >= hc.cum_lo),
        sp AS (SELECT scc.*, dv.device_id, pc.market_idx, pc.n,
            CASE WHEN u($1, 22, sid) < 0.1 THEN CAST(floor(u($1, 23, sid) * pc.n) AS BIGINT)
                 ELSE CAST(mix($1, scc.device_idx * 4096 + scc.cat_idx * 8 + CAST(floor(u($1, 24, sid) * 3) AS INTEGER)) % pc.n AS BIGINT) END AS k
          FROM scc JOIN g_devices dv ON dv.device_idx = scc.device_idx
            JOIN g_plcount pc ON pc.market_idx = dv.market_idx AND pc.cat_idx = scc.cat_idx)
      SELECT 'vis' || lpad(CAST(sp.sid AS VARCHAR), 10, '0') AS visit_id, sp.device_id, pk.place_id,
        CAST(sp.day AS TIMESTAMP) + to_seconds(CAST(sp.mins * 60 + floor(u($1, 25, sp.sid) * 60) AS BIGINT)) AS visit_start,
        round(sp.dwell * exp(0.5 * nrm($1, 26, sp.sid)), 1) AS dwell_minutes
      FROM sp JOIN g_plk pk ON pk.market_idx = sp.market_idx AND pk.cat_idx = sp.cat_idx AND pk.k = sp.k
      ORDER BY sp.sid
    ) TO ${quoteLiteral(visitsFile)} (FORMAT parquet, ROW_GROUP_SIZE 262144)`, [seed, nTrips, nDevices]);
    const placesFile = join(opts.dir, 'places.parquet');
    const devicesFile = join(opts.dir, 'devices.parquet');
    await conn.run(`COPY (SELECT place_id, name, chain_id, chain, category_id, category, latitude, longitude, country, dma_id, dma_name
      FROM g_places ORDER BY place_id) TO ${quoteLiteral(placesFile)} (FORMAT parquet)`);
    await conn.run(`COPY (SELECT device_id, age, gender, income, weight FROM g_devices ORDER BY device_idx)
      TO ${quoteLiteral(devicesFile)} (FORMAT parquet)`);
    const count = await conn.runAndReadAll(`SELECT count(*) FROM read_parquet(${quoteLiteral(visitsFile)})`);
    for (const t of ['g_places', 'g_markets', 'g_days', 'g_hour_cats', 'g_trip_hours', 'g_devices', 'g_plk', 'g_plcount']) {
      await conn.run(`DROP TABLE IF EXISTS ${t}`);
    }
    const rel = (f: string) => `read_parquet(${quoteLiteral(f)})`;
    return {
      dir: opts.dir,
      files: { places: placesFile, devices: devicesFile, visits: visitsFile },
      tables: { places: rel(placesFile), devices: rel(devicesFile), visits: rel(visitsFile) },
      counts: { places: places.length, devices: nDevices, visits: Number(count.getRows()[0]![0]), markets: markets.length },
    };
  } finally {
    if (inst) { conn.closeSync(); inst.closeSync(); }
  }
}
