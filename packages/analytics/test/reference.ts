/**
 * A second, plain TypeScript implementation of place-visits.md §3–§5, written from the spec without
 * looking at the SQL. The acceptance tests compare it with runTemplate on the same panel.
 */
export interface RPlace {
  place_id: string; name: string; chain_id: string | null; chain: string | null; category_id: string; category: string;
  latitude: number; longitude: number; country: string; dma_id: string; dma_name: string;
}
export interface RDevice { device_id: string; age: string; gender: string; income: string; weight: number }
export interface RVisit { visit_id: string; device_id: string; place_id: string; visit_start: string; dwell_minutes: number }
export interface RPanel { places: RPlace[]; devices: RDevice[]; visits: RVisit[] }
export type RRow = Record<string, string | number | boolean | null>;
type PT = 'MONTHLY' | 'QUARTERLY' | 'DAILY';
export interface RParams {
  geographies: string[]; places: string[]; period: { periodType: PT; start: string; end: string };
  age?: string[]; gender?: string[]; income?: string[]; pivot?: { rows: string[]; columns: string[] };
}

const DAY_MS = 86_400_000;
const dayNum = (iso: string) => Date.parse(`${iso.slice(0, 10)}T00:00:00Z`) / DAY_MS;
const isoOf = (n: number) => new Date(n * DAY_MS).toISOString().slice(0, 10);
const pad = (n: number) => String(n).padStart(2, '0');

interface Per { label: string; first: number; last: number } // day numbers, inclusive
function periodOfDay(t: PT, day: number): Per {
  const d = new Date(day * DAY_MS);
  const y = d.getUTCFullYear(), m = d.getUTCMonth();
  if (t === 'DAILY') return { label: isoOf(day), first: day, last: day };
  if (t === 'MONTHLY') {
    return { label: `${y}-${pad(m + 1)}`, first: Date.UTC(y, m, 1) / DAY_MS, last: Date.UTC(y, m + 1, 1) / DAY_MS - 1 };
  }
  const q = Math.floor(m / 3);
  return { label: `${y}-Q${q + 1}`, first: Date.UTC(y, q * 3, 1) / DAY_MS, last: Date.UTC(y, q * 3 + 3, 1) / DAY_MS - 1 };
}
function firstDayOfLabel(t: PT, label: string): number {
  if (t === 'DAILY') return dayNum(label);
  if (t === 'MONTHLY') return dayNum(`${label}-01`);
  return dayNum(`${label.slice(0, 4)}-${pad((Number(label[6]) - 1) * 3 + 1)}-01`);
}
function periodsOf(t: PT, start: string, end: string): Per[] {
  const out: Per[] = [];
  let p = periodOfDay(t, firstDayOfLabel(t, start));
  const stop = firstDayOfLabel(t, end);
  while (p.first <= stop) { out.push(p); p = periodOfDay(t, p.last + 1); }
  return out;
}
function yearEarlier(t: PT, label: string): string {
  const y = Number(label.slice(0, 4)) - 1;
  const rest = label.slice(4);
  return t === 'DAILY' && rest === '-02-29' ? `${y}-02-28` : `${y}${rest}`;
}

export class Reference {
  private place = new Map<string, RPlace>();
  private device = new Map<string, RDevice>();
  private covFirst: number;
  private covLast: number;
  constructor(private panel: RPanel) {
    for (const p of panel.places) this.place.set(p.place_id, p);
    for (const d of panel.devices) this.device.set(d.device_id, d);
    const days = panel.visits.map((v) => dayNum(v.visit_start));
    this.covFirst = Math.min(...days);
    this.covLast = Math.max(...days);
  }
  private w(v: RVisit) { return this.device.get(v.device_id)!.weight; }
  private pl(v: RVisit) { return this.place.get(v.place_id)!; }
  private inGeo(p: RPlace, g: string) {
    const [k, id] = [g.slice(0, g.indexOf(':')), g.slice(g.indexOf(':') + 1)];
    return k === 'country' ? p.country === id : p.dma_id === id;
  }
  private inTax(p: RPlace, s: string) {
    const [k, id] = [s.slice(0, s.indexOf(':')), s.slice(s.indexOf(':') + 1)];
    return k === 'chain' ? p.chain_id === id : p.category_id === id;
  }
  geoCols(g: string) {
    const [k, id] = [g.slice(0, g.indexOf(':')), g.slice(g.indexOf(':') + 1)];
    const name = k === 'country' ? id : (this.panel.places.find((p) => p.dma_id === id)?.dma_name ?? id);
    return { geography_type: k, geography_value: name, geography_id: id };
  }
  taxCols(s: string) {
    const [k, id] = [s.slice(0, s.indexOf(':')), s.slice(s.indexOf(':') + 1)];
    const p = this.panel.places.find((x) => (k === 'chain' ? x.chain_id === id : x.category_id === id));
    return { place_taxonomy_type: k, place_taxonomy_value: (k === 'chain' ? p?.chain : p?.category) ?? id, place_taxonomy_id: id };
  }
  private visitsOf(g: string, s: string) {
    return this.panel.visits.filter((v) => this.inGeo(this.pl(v), g) && this.inTax(this.pl(v), s));
  }
  private rangeDays(p: RParams): [number, number] {
    const ps = periodsOf(p.period.periodType, p.period.start, p.period.end);
    return [ps[0]!.first, ps[ps.length - 1]!.last];
  }

  /** normalized visits and raw count of one period of a list of visits; `reported` per the DAILY rule. */
  private nvOf(t: PT, vs: RVisit[], per: Per): { nv: number; raw: number; reported: boolean } {
    const wOn = (a: number, b: number) => vs.filter((v) => { const d = dayNum(v.visit_start); return d >= a && d <= b; });
    if (t === 'DAILY') {
      let sum = 0;
      for (let d = per.first - 6; d <= per.first; d++) sum += wOn(d, d).reduce((a, v) => a + this.w(v), 0);
      return { nv: sum / 7, raw: wOn(per.first, per.first).length, reported: per.first - 6 >= this.covFirst && per.first <= this.covLast };
    }
    const inP = wOn(per.first, per.last);
    const days = per.last - per.first + 1;
    const W = inP.reduce((a, v) => a + this.w(v), 0);
    return { nv: (W * (t === 'MONTHLY' ? 30.4375 : 91.3125)) / days, raw: inP.length, reported: true };
  }

  private series(p: RParams, g: string, s: string) {
    const t = p.period.periodType;
    const vs = this.visitsOf(g, s);
    const rows = periodsOf(t, p.period.start, p.period.end)
      .map((per) => ({ per, ...this.nvOf(t, vs, per) }))
      .filter((r) => r.reported);
    const first = rows[0]?.nv;
    return rows.map((r) => ({ ...r, idx: first === 0 || first === undefined ? null : 100 * (r.nv / first - 1) }));
  }

  indexed(p: RParams): RRow[] {
    const t = p.period.periodType;
    return p.geographies.flatMap((g) => p.places.flatMap((s) => this.series(p, g, s).map((r) => ({
      ...this.geoCols(g), ...this.taxCols(s), period_type: t, period_value: r.per.label,
      period_epoch_ms: r.per.first * DAY_MS, normalized_visits: r.nv, raw_visits: r.raw, norm_visits_pct_chg_vs_first: r.idx,
    }))));
  }

  change(p: RParams): RRow[] {
    const t = p.period.periodType;
    return p.geographies.flatMap((g) => p.places.map((s) => {
      const vs = this.visitsOf(g, s);
      let now = 0, before = 0;
      for (const per of periodsOf(t, p.period.start, p.period.end)) {
        const cur = this.nvOf(t, vs, per);
        if (!cur.reported) continue;
        now += cur.nv;
        const prevPer = periodOfDay(t, firstDayOfLabel(t, yearEarlier(t, per.label)));
        const prev = this.nvOf(t, vs, prevPer);
        if (prev.reported) before += prev.nv;
      }
      return { ...this.geoCols(g), ...this.taxCols(s), period_type: t, percent_change: before === 0 ? null : 100 * (now / before - 1) };
    }));
  }

  audience(p: RParams, dim: 'age' | 'gender'): RRow[] {
    const cohorts = dim === 'age' ? ['18-24', '25-34', '35-44', '45-54', '55-64', 'Over 65'] : ['Female', 'Male'];
    const [a, b] = this.rangeDays(p);
    const g = p.geographies[0]!;
    const geoVisits = this.panel.visits.filter((v) => { const d = dayNum(v.visit_start); return d >= a && d <= b && this.inGeo(this.pl(v), g); });
    const sel = geoVisits.filter((v) => p.places.some((s) => this.inTax(this.pl(v), s)));
    const W = (vs: RVisit[]) => vs.reduce((x, v) => x + this.w(v), 0);
    const of = (vs: RVisit[], c: string) => vs.filter((v) => this.device.get(v.device_id)![dim] === c);
    return cohorts.map((c) => {
      const share = W(sel) === 0 ? null : (100 * W(of(sel, c))) / W(sel);
      const base = W(geoVisits) === 0 ? null : (100 * W(of(geoVisits, c))) / W(geoVisits);
      return { ...this.geoCols(g), [dim]: c, norm_visit_share: share, fair_share_index: share === null || !base ? null : (100 * share) / base };
    });
  }

  cross(p: RParams): RRow[] {
    const [a, b] = this.rangeDays(p);
    const g = p.geographies[0]!;
    const visitors = (s: string) => new Set(this.panel.visits.filter((v) => {
      const d = dayNum(v.visit_start);
      return d >= a && d <= b && this.inGeo(this.pl(v), g) && this.inTax(this.pl(v), s);
    }).map((v) => v.device_id));
    const Wd = (ids: Iterable<string>) => [...ids].reduce((x, id) => x + this.device.get(id)!.weight, 0);
    return p.places.flatMap((A) => p.places.map((B) => {
      const va = visitors(A), vb = visitors(B);
      const both = [...va].filter((d) => vb.has(d));
      const tb = this.taxCols(B);
      return {
        ...this.geoCols(g), ...this.taxCols(A), secondary_place_taxonomy_value: tb.place_taxonomy_value,
        secondary_place_taxonomy_id: tb.place_taxonomy_id,
        overlap: va.size === 0 ? null : A === B ? 100 : (100 * Wd(both)) / Wd(va),
      };
    }));
  }

  journey(p: RParams): RRow[] {
    const [a, b] = this.rangeDays(p);
    const g = p.geographies[0]!, T = p.places[0]!;
    const byChain = T.startsWith('chain:');
    const inT = (v: RVisit) => this.inTax(this.pl(v), T);
    const targets = this.panel.visits.filter((v) => { const d = dayNum(v.visit_start); return d >= a && d <= b && inT(v) && this.inGeo(this.pl(v), g); });
    const groupOf = (v: RVisit) => {
      const pl = this.pl(v);
      if (byChain && pl.chain_id) return { type: 'chain', id: pl.chain_id, name: pl.chain! };
      return { type: 'category', id: pl.category_id, name: pl.category };
    };
    const out: RRow[] = [];
    for (const rel of ['before', 'after'] as const) {
      const acc = new Map<string, { type: string; id: string; name: string; w: number }>();
      let total = 0;
      for (const tv of targets) {
        const others = this.panel.visits.filter((o) => o.device_id === tv.device_id && !inT(o)
          && o.visit_start.slice(0, 10) === tv.visit_start.slice(0, 10)
          && (rel === 'before' ? o.visit_start < tv.visit_start : o.visit_start > tv.visit_start));
        if (others.length === 0) continue;
        // nearest in time; ties: greatest visit_id before, smallest after
        others.sort((x, y) => (x.visit_start < y.visit_start ? -1 : x.visit_start > y.visit_start ? 1 : x.visit_id < y.visit_id ? -1 : 1));
        const pick = rel === 'before' ? others[others.length - 1]! : others[0]!;
        const grp = groupOf(pick);
        const key = `${grp.type}:${grp.id}`;
        const cur = acc.get(key) ?? { ...grp, w: 0 };
        cur.w += this.w(tv);
        acc.set(key, cur);
        total += this.w(tv);
      }
      const rows = [...acc.values()].map((x) => ({ ...x, pct: (100 * x.w) / total }));
      rows.sort((x, y) => y.pct - x.pct || (x.type < y.type ? -1 : x.type > y.type ? 1 : x.id < y.id ? -1 : 1));
      for (const r of rows.slice(0, 40)) {
        out.push({ ...this.geoCols(g), relationship: rel, place_taxonomy_type: r.type, place_taxonomy_value: r.name, place_taxonomy_id: r.id, percentage: r.pct });
      }
    }
    return out;
  }

  trends(p: RParams, kind: 'indexed' | 'daypart' | 'dwell'): RRow[] {
    const t = p.period.periodType;
    const g = p.geographies[0]!;
    const out: RRow[] = [];
    for (const s of p.places) {
      const vs = this.visitsOf(g, s);
      for (const r of this.series(p, g, s)) {
        const head = { placeTaxonomyValue: this.taxCols(s).place_taxonomy_value, geographyValue: this.geoCols(g).geography_value, periodEpochMs: r.per.first * DAY_MS };
        const inPer = vs.filter((v) => { const d = dayNum(v.visit_start); return d >= r.per.first && d <= r.per.last; });
        if (kind === 'indexed') out.push({ ...head, norm_visits_pct_chg_vs_first: r.idx });
        else if (kind === 'daypart') {
          const part = (v: RVisit) => { const h = Number(v.visit_start.slice(11, 13)); return h >= 5 && h <= 11 ? 'Morning' : h >= 12 && h <= 16 ? 'Afternoon' : 'Evening'; };
          const W = inPer.reduce((x, v) => x + this.w(v), 0);
          for (const c of ['Morning', 'Afternoon', 'Evening']) {
            const Wc = inPer.filter((v) => part(v) === c).reduce((x, v) => x + this.w(v), 0);
            out.push({ ...head, cohortValue: c, shareOfNormalizedVisits: W === 0 ? null : (100 * Wc) / W });
          }
        } else {
          const ds = inPer.map((v) => v.dwell_minutes).sort((x, y) => x - y);
          const m = ds.length === 0 ? null : ds.length % 2 ? ds[(ds.length - 1) / 2]! : (ds[ds.length / 2 - 1]! + ds[ds.length / 2]!) / 2;
          out.push({ ...head, medianDwellTimeMinutes: m });
        }
      }
    }
    return out;
  }

  pivot(p: RParams): RRow[] {
    const t = p.period.periodType;
    const asked = new Set([...(p.pivot?.rows ?? []), ...(p.pivot?.columns ?? [])]);
    const dims = (['age', 'gender', 'income'] as const).filter((d) => asked.has(d));
    const keep = (v: RVisit) => (['age', 'gender', 'income'] as const).every((d) => !p[d]?.length || p[d]!.includes(this.device.get(v.device_id)![d]));
    const out: RRow[] = [];
    for (const g of p.geographies) for (const s of p.places) {
      const vs = this.visitsOf(g, s).filter(keep);
      const groups = new Map<string, RVisit[]>();
      for (const v of vs) {
        const k = dims.map((d) => this.device.get(v.device_id)![d]).join('|');
        groups.set(k, [...(groups.get(k) ?? []), v]);
      }
      for (const per of periodsOf(t, p.period.start, p.period.end)) {
        for (const [k, gv] of groups) {
          const r = this.nvOf(t, gv, per);
          if (!r.reported || r.raw === 0) continue;
          const parts = k.split('|');
          out.push({
            ...this.geoCols(g), ...this.taxCols(s), period_type: t, period_value: per.label, period_epoch_ms: per.first * DAY_MS,
            ...Object.fromEntries(dims.map((d, i) => [d, parts[i]!])), normalized_visits: r.nv, raw_visits: r.raw,
          });
        }
      }
    }
    return out;
  }

  run(templateId: string, p: RParams): RRow[] {
    switch (templateId) {
      case 'indexed-foot-traffic': return this.indexed(p);
      case 'change-in-visits': return this.change(p);
      case 'audience-age': return this.audience(p, 'age');
      case 'audience-gender': return this.audience(p, 'gender');
      case 'cross-visitation': return this.cross(p);
      case 'customer-journey': return this.journey(p);
      case 'trends-indexed': return this.trends(p, 'indexed');
      case 'trends-daypart': return this.trends(p, 'daypart');
      case 'trends-dwell': return this.trends(p, 'dwell');
      case 'movement-pivot': return this.pivot(p);
      default: throw new Error(templateId);
    }
  }
}
