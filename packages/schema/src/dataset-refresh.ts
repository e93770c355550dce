import { z } from 'zod';
import { IsoDate } from './common';

/**
 * Live datasets (type sql: a connection and a query) keep a Parquet snapshot of their result for maps,
 * downloads and SQL. One refresh model runs the query again: on open when the snapshot is older than its
 * max age, on a schedule the user sets, and when asked ("Refresh now"). Spec: catalog.md §9, default cache
 * max age 2678400 s; the rest is decided in docs/decisions.md "Live dataset refresh".
 */

/** catalog.md §9: the default cache max age. */
export const DEFAULT_REFRESH_MAX_AGE_SECONDS = 2_678_400;

/** The schedules offered by name, as the cron expressions they stand for (minute hour day month weekday, UTC). */
export const REFRESH_PRESETS = { hourly: '0 * * * *', daily: '0 0 * * *' } as const;
export type RefreshPreset = keyof typeof REFRESH_PRESETS;

/** What set off a refresh: the user's "Refresh now", the schedule, or opening a dataset older than its max age. */
export const REFRESH_TRIGGERS = ['manual', 'schedule', 'open'] as const;
export const RefreshTrigger = z.enum(REFRESH_TRIGGERS);
export type RefreshTrigger = z.infer<typeof RefreshTrigger>;

export const DatasetRefresh = z.object({
  /** `hourly`, `daily`, a five-field cron expression (UTC), or null: no schedule. */
  schedule: z.string().nullable(),
  /** Opening the dataset runs the query again when its snapshot is older than this. */
  maxAgeSeconds: z.number().int(),
  /** When the schedule runs it next; null without a schedule. */
  nextRefreshAt: IsoDate.nullable(),
  lastRefreshAt: IsoDate.nullable(),
  lastOutcome: z.enum(['succeeded', 'failed', 'cancelled']).nullable(),
  /** Why the last refresh failed; null when it succeeded. */
  lastMessage: z.string().nullable(),
  lastTrigger: RefreshTrigger.nullable(),
});
export type DatasetRefresh = z.infer<typeof DatasetRefresh>;

/** PUT /v1/datasets/{id}/refresh-schedule: what the user sets; what is left out stays as it is. */
export const DatasetRefreshUpdate = z.object({
  schedule: z.string().trim().min(1, 'must not be empty: send null for no schedule').max(200).nullable().optional(),
  maxAgeSeconds: z.number().int().min(60, 'must be at least 60 seconds').max(31_536_000, 'must be at most 31536000 seconds (a year)').optional(),
});
export type DatasetRefreshUpdate = z.infer<typeof DatasetRefreshUpdate>;

/** A new live dataset's settings: no schedule, the default max age, never refreshed. */
export const initialRefresh = (): DatasetRefresh => ({
  schedule: null,
  maxAgeSeconds: DEFAULT_REFRESH_MAX_AGE_SECONDS,
  nextRefreshAt: null,
  lastRefreshAt: null,
  lastOutcome: null,
  lastMessage: null,
  lastTrigger: null,
});
