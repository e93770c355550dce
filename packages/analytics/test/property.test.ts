import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import { runTemplate, TEMPLATE_IDS } from '../src';
import { Reference, type RDevice, type RPanel, type RParams, type RPlace, type RVisit } from './reference';
import { places as handPlaces } from './fixture';
import { diffRows, loadPanel, openDuck } from './helpers';

let conn: DuckDBConnection;
let close: () => void;
beforeAll(async () => ({ conn, close } = await openDuck()));
afterAll(() => close());

const places: RPlace[] = handPlaces;
const pad = (n: number) => String(n).padStart(2, '0');
const DAY0 = Date.UTC(2024, 0, 1);
const dayIso = (i: number) => new Date(DAY0 + i * 86_400_000).toISOString().slice(0, 10);

const device = (i: number) => fc.record({
  device_id: fc.constant(`d${i}`),
  age: fc.constantFrom('18-24', '25-34', '35-44', '45-54', '55-64', 'Over 65'),
  gender: fc.constantFrom('Female', 'Male'),
  income: fc.constantFrom('Under 25k', '25k-50k', '50k-100k', 'Over 100k'),
  weight: fc.constantFrom(0.5, 1, 1.25, 2, 3.5),
});
// Visits cluster on few days and half-hours so that windows, ties and same-day trips occur.
const visit = fc.record({
  device: fc.integer({ min: 0, max: 3 }),
  place: fc.constantFrom(...places.map((p) => p.place_id)),
  // Two seasons a year apart (for year-earlier comparisons) and a dense week around 29 Feb 2024.
  day: fc.oneof(fc.integer({ min: 30, max: 100 }), fc.integer({ min: 396, max: 466 }), fc.integer({ min: 55, max: 62 })),
  hour: fc.integer({ min: 0, max: 23 }),
  half: fc.boolean(),
  dwell: fc.integer({ min: 0, max: 90 }),
  // A same-day trip: further stops by the same device, 0-3 hours later (0 makes equal start times).
  then: fc.array(fc.record({ place: fc.constantFrom(...places.map((p) => p.place_id)), gap: fc.integer({ min: 0, max: 3 }) }), { maxLength: 3 }),
});
const panelArb = fc.tuple(fc.tuple(device(0), device(1), device(2), device(3)), fc.array(visit, { minLength: 25, maxLength: 60 }))
  .map(([devices, vs]): RPanel => ({
    places,
    devices: devices as RDevice[],
    visits: vs.flatMap((v) => {
      let hour = v.hour;
      return [{ place: v.place, hour }, ...v.then.map((t) => ({ place: t.place, hour: (hour = Math.min(23, hour + t.gap)) }))]
        .map((stop) => ({ ...v, ...stop }));
    }).map((v, i): RVisit => ({
      visit_id: `v${pad(i)}`, device_id: `d${v.device}`, place_id: v.place,
      visit_start: `${dayIso(v.day)} ${pad(v.hour)}:${v.half ? '30' : '00'}:00`, dwell_minutes: v.dwell,
    })),
  }));

const periodArb = fc.oneof(
  fc.tuple(fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 12, max: 15 })), fc.integer({ min: 0, max: 2 })).map(([a, n]) => {
    const m = (k: number) => `${2024 + Math.floor(k / 12)}-${pad((k % 12) + 1)}`;
    return { periodType: 'MONTHLY' as const, start: m(a), end: m(a + n) };
  }),
  fc.tuple(fc.constantFrom(0, 1, 4, 5), fc.integer({ min: 0, max: 1 })).map(([a, n]) => {
    const q = (k: number) => `${2024 + Math.floor(k / 4)}-Q${(k % 4) + 1}`;
    return { periodType: 'QUARTERLY' as const, start: q(a), end: q(a + n) };
  }),
  fc.tuple(fc.oneof(fc.integer({ min: 36, max: 95 }), fc.integer({ min: 402, max: 460 })), fc.integer({ min: 0, max: 25 })).map(([a, n]) => ({
    periodType: 'DAILY' as const, start: dayIso(a), end: dayIso(a + n),
  })),
);
const geoArb = fc.constantFrom('country:US', 'dma:la', 'dma:ny');
const chainArb = fc.constantFrom('chain:sbux', 'chain:dunk', 'chain:tgt', 'chain:mcd', 'chain:shell');
const placeArb = fc.oneof(chainArb, fc.constantFrom('category:coffee', 'category:fast_food', 'category:general'));

const queryArb = fc.constantFrom(...TEMPLATE_IDS).chain((id) => {
  const one = <T>(a: fc.Arbitrary<T>) => a.map((x) => [x]);
  const some = <T>(a: fc.Arbitrary<T>, max: number) => fc.uniqueArray(a, { minLength: 1, maxLength: max });
  const [geos, pls] =
    id === 'cross-visitation' ? [one(geoArb), some(chainArb, 4)]
    : id === 'customer-journey' ? [one(geoArb), one(placeArb)]
    : id === 'indexed-foot-traffic' ? [one(geoArb), some(placeArb, 4)]
    : id.startsWith('audience') || id.startsWith('trends') ? [one(geoArb), some(placeArb, 3)]
    : [some(geoArb, 3), some(placeArb, 3)];
  return fc.record({
    id: fc.constant(id), geographies: geos, places: pls, period: periodArb,
    age: fc.option(fc.subarray(['18-24', '25-34', '35-44', '45-54', '55-64', 'Over 65']), { nil: undefined }),
    gender: fc.option(fc.subarray(['Female', 'Male']), { nil: undefined }),
    pivot: fc.record({ rows: fc.subarray(['place', 'age', 'gender']), columns: fc.subarray(['period', 'income']) }),
  });
});

describe('random panels: SQL and reference agree', () => {
  it('for every template', async () => {
    let n = 0;
    const hits: Record<string, number> = {};
    await fc.assert(fc.asyncProperty(panelArb, fc.array(queryArb, { minLength: 3, maxLength: 3 }), async (panel, queries) => {
      const tables = await loadPanel(conn, panel, `r${n++}_`);
      const ref = new Reference(panel);
      for (const { id, ...rest } of queries) {
        const params: RParams = id === 'movement-pivot' ? rest : { geographies: rest.geographies, places: rest.places, period: rest.period };
        const rows = await runTemplate(conn, id, params, tables);
        const diff = diffRows(rows, ref.run(id, params));
        if (rows.some((r) => Object.values(r).some((v) => typeof v === 'number' && v !== 0 && !String(v).match(/^1\d{12}$/)))) hits[id] = (hits[id] ?? 0) + 1;
        if (diff) throw new Error(`${id} ${JSON.stringify(params)}: ${diff}`);
      }
      for (const t of ['places', 'devices', 'visits'] as const) await conn.run(`DROP TABLE ${tables[t]}`);
    }), { numRuns: 60, seed: 20261121 });
    expect(n).toBe(60);
    // Queries must mostly produce figures (not only empty or zero series), or the property proves little.
    const informative = Object.values(hits).reduce((a, b) => a + b, 0);
    expect(informative, JSON.stringify(hits)).toBeGreaterThan(90);
    expect(Object.keys(hits).sort(), JSON.stringify(hits)).toEqual([...TEMPLATE_IDS].sort());
  }, 120_000);
});
