import { historyCalls } from '@studio/client';
import type { HistoryCollection, StudioRecord, VersionSource, VersionSummary } from '@studio/schema';
import { client } from '../api';

/** The history calls of a collection, on the app's one client. */
export const history = (collection: HistoryCollection) => historyCalls(client, collection);

/** The query parameter of a version's read-only view (`/preview/{id}?atVersion=3`, `/workbook/{id}?atVersion=3`). */
export const VERSION_PARAM = 'atVersion';

/** The version a page was asked to show read-only, or null for the record as it is now. */
export function versionParam(search: URLSearchParams): number | null {
  const n = Number(search.get(VERSION_PARAM));
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

/** Where version `n` opens read-only; `embed`: the map alone (the diff's side-by-side renders). */
export function versionViewUrl(collection: HistoryCollection, id: string, n: number, embed = false): string {
  if (collection === 'workbooks') return `/workbook/${id}?${VERSION_PARAM}=${n}`;
  return `/preview/${id}?${VERSION_PARAM}=${n}${embed ? '&embed=1' : ''}`;
}

/** Where the record itself opens in its editor. */
export function editorUrl(collection: HistoryCollection, id: string): string {
  return collection === 'maps' ? `/${id}` : collection === 'insights' ? `/dashboard/${id}` : `/workbook/${id}`;
}

/**
 * The version a save from this record's state is based on (sent as baseVersion): the record's latest version as the
 * server answers it (`version`, #51); undefined for a record never versioned, and the save is then not checked.
 */
export const recordVersion = (record: StudioRecord | null | undefined): number | undefined => record?.version ?? undefined;

export const SOURCE_LABELS: Record<VersionSource, string> = {
  builder: 'Saved in the editor',
  api: 'Saved through the API',
  sdk: 'Saved by the SDK',
  import: 'Imported',
  restore: 'Restored',
};

/** "Version 3 · 2 Dec 2026, 04:31 · Ada Lovelace". */
export function versionTitle(v: VersionSummary): string {
  return [`Version ${v.n}`, formatDateTime(v.createdAt), v.createdBy?.name ?? 'Unknown user'].join(' · ');
}

export function formatDateTime(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : d.toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

/** A before/after value as one short line: colours as rgb(), objects as compact JSON. */
export function formatValue(v: unknown): string {
  if (v === undefined || v === null) return '—';
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.length >= 3 && v.length <= 4 && v.every((x) => typeof x === 'number')) return `rgb(${v.slice(0, 3).join(', ')})`;
  const text = JSON.stringify(v);
  return text.length > 160 ? `${text.slice(0, 157)}…` : text;
}

/** An RGB triple of a before/after value, for a swatch beside it; null when it is no colour. */
export function colorOf(v: unknown): string | null {
  if (!Array.isArray(v) || v.length < 3 || v.length > 4 || !v.every((x) => typeof x === 'number' && x >= 0 && x <= 255)) return null;
  return `rgb(${v.slice(0, 3).join(', ')})`;
}
