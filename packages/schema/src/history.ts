import { z } from 'zod';
import { Id, IsoDate } from './common';

/**
 * History (#51): every save that changes a map's, dashboard's or workbook's `latestState` is a version.
 * The calls below are declared once here; the server's routes (routes/history.ts) and the web app's
 * History panel both read them. Deltas and the change list live beside this file (history-deltas.ts,
 * history-changes.ts) so the browser's diff view and the server agree.
 */

/** The collections that keep versions; `insights` are dashboards. */
export const HISTORY_COLLECTIONS = ['maps', 'insights', 'workbooks'] as const;
export const HistoryCollection = z.enum(HISTORY_COLLECTIONS);
export type HistoryCollection = z.infer<typeof HistoryCollection>;

/** What a version was saved from. */
export const VERSION_SOURCES = ['builder', 'api', 'sdk', 'import', 'restore'] as const;
export const VersionSource = z.enum(VERSION_SOURCES);
export type VersionSource = z.infer<typeof VersionSource>;

/** A dataset snapshot a version was saved with ("as it looked then"). */
export const VersionPin = z.object({ datasetId: Id, snapshotId: Id });
export type VersionPin = z.infer<typeof VersionPin>;

export const VersionSummary = z.object({
  /** 1-based, increasing per record; never reused, also after thinning. */
  n: z.number().int().positive(),
  createdAt: IsoDate,
  createdBy: z.object({ id: Id, name: z.string() }).nullable(),
  message: z.string().nullable(),
  source: VersionSource,
  /** The state's own schema version as saved (studioVersion for maps, version for dashboards/workbooks). */
  schemaVersion: z.number().int().nullable(),
  restoredFrom: z.number().int().positive().nullable(),
  pins: z.array(VersionPin),
});
export type VersionSummary = z.infer<typeof VersionSummary>;

export const VersionList = z.object({ items: z.array(VersionSummary) });
export type VersionList = z.infer<typeof VersionList>;

/** A version opened: the latestState as saved then, brought up through the type's parseVersionedState. */
export const VersionDetail = VersionSummary.extend({ state: z.unknown() });
export type VersionDetail = z.infer<typeof VersionDetail>;

export const CHANGE_KINDS = ['added', 'removed', 'changed', 'moved'] as const;
export const ChangeKind = z.enum(CHANGE_KINDS);
export type ChangeKind = z.infer<typeof ChangeKind>;

export const TextDiffPart = z.object({ op: z.enum(['equal', 'insert', 'delete']), text: z.string() });
export type TextDiffPart = z.infer<typeof TextDiffPart>;

/**
 * One change between two states, in the terms of the thing: `area` is e.g. 'layer', 'filter',
 * 'interaction', 'mapStyle', 'view' (maps), 'widget', 'parameter', 'layout' (dashboards), 'cell'
 * (workbooks); `id` the layer/widget/cell id; `label` its human name; `property` a dotted path inside it
 * ('color', 'visConfig.opacity', 'sql') or null for the whole item. `textDiff` for SQL and markdown.
 */
export const Change = z.object({
  area: z.string(),
  id: z.string().nullable(),
  label: z.string(),
  kind: ChangeKind,
  property: z.string().nullable(),
  before: z.unknown(),
  after: z.unknown(),
  textDiff: z.array(TextDiffPart).optional(),
});
export type Change = z.infer<typeof Change>;

export const VersionDiff = z.object({ from: z.number().int(), to: z.number().int(), changes: z.array(Change) });
export type VersionDiff = z.infer<typeof VersionDiff>;

export const RestoreBody = z.object({ message: z.string().max(1000).optional() });
export type RestoreBody = z.infer<typeof RestoreBody>;

/** The path parameters of the history calls. */
/** A version number in a path: the catalog keeps it as a 32-bit integer, so a larger one is bad input (422), not a 500. */
const VersionNumber = z.coerce.number().int().positive().max(2_147_483_647);
export const VersionParams = z.object({ id: Id, n: VersionNumber });
export const VersionDiffParams = z.object({ id: Id, a: VersionNumber, b: VersionNumber });

/**
 * Save options the record's PUT accepts beside latestState: an optional message, and the version the
 * edit was based on (`baseVersion`, or the `If-Match: "<n>"` header). When that is not the latest the
 * save is refused with 409 and `VersionConflict`.
 */
export const VersionedSaveFields = z.object({
  versionMessage: z.string().max(1000).optional(),
  baseVersion: z.number().int().positive().max(2_147_483_647).optional(),
  /**
   * Pin the data (#51): the version keeps, for each dataset the record links after the save, the snapshot it
   * has now, so the version opens with the rows it showed ("as it looked then"). Without it, today's data.
   */
  pinData: z.boolean().optional(),
});
export const VersionConflict = z.object({ error: z.string(), latest: z.number().int(), changes: z.array(Change) });
export type VersionConflict = z.infer<typeof VersionConflict>;

/** `If-Match: "12"` (or `12`, or `W/"12"`) → 12; undefined for anything else. */
export function parseIfMatchVersion(header: string | string[] | undefined): number | undefined {
  const raw = Array.isArray(header) ? header[0] : header;
  const m = raw?.trim().match(/^(?:W\/)?"?(\d+)"?$/);
  const n = m ? Number(m[1]) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/**
 * Retention an administrator sets (#51): every version for `keepAllDays`, then the last of each day
 * until `dailyForDays`, then the last of each week. The latest version is always kept.
 */
export const HistoryRetention = z
  .object({
    keepAllDays: z.number().int().min(0).max(36_500).default(30),
    dailyForDays: z.number().int().min(0).max(36_500).default(365),
    /** A dataset's replaced data is kept this long; after it, only while a kept version pins it. */
    snapshotDays: z.number().int().min(0).max(36_500).default(30),
  })
  .refine((r) => r.dailyForDays >= r.keepAllDays, { message: 'dailyForDays must be at least keepAllDays' });
export type HistoryRetention = z.infer<typeof HistoryRetention>;
export const DEFAULT_HISTORY_RETENTION: HistoryRetention = { keepAllDays: 30, dailyForDays: 365, snapshotDays: 30 };

/** What versions keep in the catalog, for administrators. */
export const HistoryStorage = z.object({
  versions: z.number().int(),
  bytes: z.number().int(),
  /** Replaced dataset data kept as snapshots (pinned or within the retention), and their stored bytes. */
  snapshots: z.number().int(),
  snapshotBytes: z.number().int(),
});
export type HistoryStorage = z.infer<typeof HistoryStorage>;
export const HistoryThinResult = z.object({ removed: z.number().int(), storage: HistoryStorage });
