import { z } from 'zod';
import { IsoDate } from '../common';
import { HistoryRetention, HistoryStorage, HistoryThinResult } from '../history';
import { contract } from './contract';

/**
 * The retention administrators set for versions of maps, dashboards and workbooks (#51), with when the
 * scheduled thinning last ran. Stored in the catalog, so every node's scheduler reads the same setting.
 */
export const HistoryRetentionSetting = z.object({
  retention: HistoryRetention,
  /** When the daily thinning job last started; null before its first run. */
  lastThinnedAt: IsoDate.nullable(),
});
export type HistoryRetentionSetting = z.infer<typeof HistoryRetentionSetting>;

/** Administrators: the storage versions use, the retention setting, and a thinning pass now. */
export const historyAdminCalls = {
  storage: contract({
    method: 'GET',
    url: '/v1/admin/history/storage',
    summary: 'How many versions of maps, dashboards and workbooks the catalog keeps, and their bytes',
    tag: 'admin',
    auth: 'admin',
    response: HistoryStorage,
  }),
  retention: contract({
    method: 'GET',
    url: '/v1/admin/history/retention',
    summary: 'The retention a daily job thins versions by (default: every version for 30 days, the last of each day for a year, then of each week), and its last run',
    tag: 'admin',
    auth: 'admin',
    response: HistoryRetentionSetting,
  }),
  setRetention: contract({
    method: 'PUT',
    url: '/v1/admin/history/retention',
    summary: 'Set the retention the daily thinning job applies to every record\'s versions (the latest is always kept; every kept version stays reproducible)',
    tag: 'admin',
    auth: 'admin',
    body: HistoryRetention,
    response: HistoryRetentionSetting,
  }),
  thin: contract({
    method: 'POST',
    url: '/v1/admin/history/thin',
    summary: 'Thin every record\'s versions by a retention given now (every version kept reproducible); answers the versions removed and the storage left',
    tag: 'admin',
    auth: 'admin',
    body: HistoryRetention,
    response: HistoryThinResult,
  }),
};
