import type { GeometryRepairs } from '@studio/schema';

const count = (n: number, one: string, many: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** What each repair did, said of the geometries it was made to (ingest's geometry pass, engine/src/geometry-repair.ts). */
const REPAIRED: Record<keyof GeometryRepairs['repairs'], string> = {
  cut: 'cut at the antimeridian',
  pole: 'closed along a pole',
  wrapped: 'moved from 0–360° longitudes into -180–180°',
  closed: 'given a closing point',
  duplicates: 'rid of repeated points',
  orientation: 'turned to run counter-clockwise',
};

/**
 * The dataset page's lines about its geometry: "3 geometries were cut at the antimeridian", "12 geometries are
 * invalid: self-intersections". Invalid ones first: they are kept as written and some answers on them differ.
 */
export function geometryRepairLines(r: GeometryRepairs | null | undefined): string[] {
  if (!r) return [];
  const invalid = Object.entries(r.invalid)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `${count(n, 'geometry is', 'geometries are')} invalid: ${n === 1 ? kind : `${kind}s`}`);
  const repaired = (Object.keys(REPAIRED) as (keyof typeof REPAIRED)[])
    .filter((k) => (r.repairs[k] ?? 0) > 0)
    .map((k) => `${count(r.repairs[k]!, 'geometry was', 'geometries were')} ${REPAIRED[k]}`);
  return [...invalid, ...repaired];
}
