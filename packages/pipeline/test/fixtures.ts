import { latLngToCell } from 'h3-js';
import type { Row } from '../src/index';
import type { Table } from './engines';

export const people: Row[] = [
  { id: 1, name: 'ann', city: 'x', metric1: 10, metric2: 1.5, ts: '2024-01-05T10:00:00.000Z', lat: 37.7749, lng: -122.4194 },
  { id: 2, name: 'bob', city: 'x', metric1: null, metric2: 2.5, ts: '2024-01-20T11:30:00.000Z', lat: 37.7849, lng: -122.4094 },
  { id: 3, name: 'cy', city: 'y', metric1: 5, metric2: null, ts: '2024-02-01T00:00:00.000Z', lat: 40.7128, lng: -74.006 },
  { id: 4, name: null, city: 'y', metric1: 7, metric2: 4, ts: '2024-02-15T08:00:00.000Z', lat: 40.7228, lng: -74.016 },
  { id: 5, name: 'dee', city: null, metric1: 10, metric2: 0.5, ts: null, lat: null, lng: null },
  { id: 6, name: 'eve', city: 'z', metric1: 2, metric2: 8, ts: '2024-03-01T12:00:00.000Z', lat: 51.5074, lng: -0.1278 },
];

export const lefts: Row[] = [
  { k: 1, a: 'one' },
  { k: 2, a: 'two' },
  { k: null, a: 'nul' },
];
export const rights: Row[] = [
  { k: 1, b: 10 },
  { k: 1, b: 11 },
  { k: 3, b: 30 },
  { k: null, b: 99 },
];

/** Source for enrich: res-7 cells of the first three people's points, one with a date. */
const cell = (r: Row) => latLngToCell(r.lat as number, r.lng as number, 7);
export const cells: Row[] = [
  { hex: cell(people[0]!), pop: 100, day: '2024-01-05T00:00:00.000Z' },
  { hex: cell(people[2]!), pop: 300, day: '2024-02-01T00:00:00.000Z' },
  { hex: cell(people[3]!), pop: 400, day: '1999-01-01T00:00:00.000Z' },
];

export const TABLES: Table[] = [
  {
    name: 'people',
    columns: { id: 'BIGINT', name: 'VARCHAR', city: 'VARCHAR', metric1: 'BIGINT', metric2: 'DOUBLE', ts: 'TIMESTAMP', lat: 'DOUBLE', lng: 'DOUBLE' },
    rows: people,
  },
  { name: 'lefts', columns: { k: 'BIGINT', a: 'VARCHAR' }, rows: lefts },
  { name: 'rights', columns: { k: 'BIGINT', b: 'BIGINT' }, rows: rights },
  { name: 'cells', columns: { hex: 'VARCHAR', pop: 'BIGINT', day: 'TIMESTAMP' }, rows: cells },
];

export const ds = (uuid: string) => ({ type: 'dataset', uuid });
export const pick = (rows: Row[], cols: string[]) => rows.map((r) => Object.fromEntries(cols.map((c) => [c, r[c] ?? null])));
