import { applyStateDelta, DEFAULT_HISTORY_RETENTION, HistoryRetention, rebaseChain, type HistoryRetentionSetting } from '@studio/schema';
import type { Db } from '../store/db';
import { atomically } from '../store/unit-of-work';
import type { JobService, StudioJobKind } from './jobs/service';
import { every } from './every';
import type { DatasetSnapshots } from './dataset-snapshots';

const DAY_MS = 86_400_000;

/** Monday-based week number since the epoch (1970-01-01 was a Thursday): the week a version is kept for. */
const weekOf = (t: number) => Math.floor((t / DAY_MS + 3) / 7);

/** What thinning versions reads of the retention (its `snapshotDays` is the snapshots' pass). */
type VersionRetention = Pick<HistoryRetention, 'keepAllDays' | 'dailyForDays'>;

/**
 * The versions retention keeps (#51): every one younger than `keepAllDays`, the last of each UTC day until
 * `dailyForDays`, the last of each week after that, and always the latest. `versions` oldest first.
 */
export function versionsToKeep(versions: readonly { n: number; createdAt: Date }[], now: Date, retention: VersionRetention = DEFAULT_HISTORY_RETENTION): Set<number> {
  const kept = new Set<number>();
  const lastOfBucket = new Map<string, number>();
  for (const v of versions) {
    const age = now.getTime() - v.createdAt.getTime();
    if (age < retention.keepAllDays * DAY_MS) kept.add(v.n);
    else {
      const t = v.createdAt.getTime();
      const bucket = age < retention.dailyForDays * DAY_MS ? `d${Math.floor(t / DAY_MS)}` : `w${weekOf(t)}`;
      // Oldest first: a later version of the same bucket replaces the one kept so far.
      lastOfBucket.set(bucket, v.n);
    }
  }
  for (const n of lastOfBucket.values()) kept.add(n);
  if (versions.length) kept.add(versions[versions.length - 1]!.n);
  return kept;
}

/**
 * Thins one record's versions: removes those retention lets go and stores the kept ones as a chain again
 * (a full state first and every 20th after, deltas between), so every kept version stays reproducible
 * without the removed ones. Answers how many were removed.
 */
export async function thinRecordVersions(db: Db, recordId: string, now: Date, retention?: VersionRetention): Promise<number> {
  return atomically(db, async () => {
    const rows = await db.selectFrom('record_versions').select(['n', 'created_at', 'kind', 'body']).where('record_id', '=', recordId).orderBy('n').forUpdate().execute();
    const keep = versionsToKeep(rows.map((r) => ({ n: r.n, createdAt: new Date(r.created_at) })), now, retention);
    if (keep.size === rows.length) return 0;
    // Every version's state in order (each from the one before it), the kept ones remembered.
    const keptStates: { n: number; state: unknown }[] = [];
    let state: unknown = null;
    for (const r of rows) {
      state = r.kind === 'full' ? r.body : applyStateDelta(state, r.body as never);
      if (keep.has(r.n)) keptStates.push({ n: r.n, state });
    }
    const removed = rows.filter((r) => !keep.has(r.n)).map((r) => r.n);
    await db.deleteFrom('record_versions').where('record_id', '=', recordId).where('n', 'in', removed).execute();
    const chain = rebaseChain(keptStates.map((k) => k.state));
    for (const [i, link] of chain.entries()) {
      const body = JSON.stringify(link.body);
      await db
        .updateTable('record_versions')
        .set({ kind: link.kind, chain: link.chain, body, bytes: Buffer.byteLength(body) })
        .where('record_id', '=', recordId)
        .where('n', '=', keptStates[i]!.n)
        .execute();
    }
    return removed.length;
  });
}

/** Thins every record's versions (the retention job's pass): answers the versions removed. */
export async function thinAllVersions(db: Db, now: Date, retention?: VersionRetention): Promise<number> {
  const cutoff = new Date(now.getTime() - (retention ?? DEFAULT_HISTORY_RETENTION).keepAllDays * DAY_MS);
  // Only records with a version past the keep-all period can lose any.
  const records = await db.selectFrom('record_versions').select('record_id').where('created_at', '<', cutoff).distinct().execute();
  let removed = 0;
  for (const r of records) removed += await thinRecordVersions(db, r.record_id, now, retention);
  return removed;
}

/** The catalog's settings rows of the retention (JSON) and of the scheduled thinning's last start (ISO time). */
const RETENTION_KEY = 'history.retention';
const LAST_THINNED_KEY = 'history.lastThinnedAt';
export const HISTORY_THINNING_KIND = 'history-thinning' as const;
/** The scheduled thinning runs at most once in this long, whichever node's scheduler sees it due first. */
const THIN_EVERY_MS = DAY_MS;

/**
 * The retention an administrator set, from the catalog (the default until one is set). A stored value this
 * studio no longer reads falls back to the default: thinning by a guess could remove versions nobody meant to.
 */
export async function storedRetention(db: Db): Promise<HistoryRetention> {
  const row = await db.selectFrom('settings').select('value').where('key', '=', RETENTION_KEY).executeTakeFirst();
  if (!row) return DEFAULT_HISTORY_RETENTION;
  const parsed = HistoryRetention.safeParse(JSON.parse(row.value));
  return parsed.success ? parsed.data : DEFAULT_HISTORY_RETENTION;
}

export async function retentionSetting(db: Db): Promise<HistoryRetentionSetting> {
  const last = await db.selectFrom('settings').select('value').where('key', '=', LAST_THINNED_KEY).executeTakeFirst();
  return { retention: await storedRetention(db), lastThinnedAt: last?.value ? new Date(last.value).toISOString() : null };
}

export async function setRetention(db: Db, retention: HistoryRetention): Promise<HistoryRetentionSetting> {
  const value = JSON.stringify(retention);
  await db.insertInto('settings').values({ key: RETENTION_KEY, value }).onConflict((oc) => oc.column('key').doUpdateSet({ value })).execute();
  return retentionSetting(db);
}

/**
 * The scheduled thinning (#51): a job kind that thins every record's versions by the stored retention, and a
 * scheduler on each node that runs jobs which queues it once a day. The day's claim is a row lock on the
 * last-run setting, so two nodes ticking together queue one job.
 */
export function historyThinning(s: { db: Db; jobs: JobService; snapshots: Pick<DatasetSnapshots, 'removeExpired'> }) {
  return {
    job(): StudioJobKind<Record<string, never>> {
      return {
        kind: HISTORY_THINNING_KIND,
        async run(job) {
          const now = new Date();
          const retention = await storedRetention(s.db);
          const removed = await thinAllVersions(s.db, now, retention);
          // After the thinning: a snapshot only a removed version pinned goes in the same pass.
          await s.snapshots.removeExpired(now, retention.snapshotDays);
          job.progress(100, removed);
        },
      };
    },

    /** Queues the thinning when its day has come (no run started in the last 24 hours); answers the job's id, or null. */
    async queueIfDue(now = new Date()): Promise<string | null> {
      const id = await atomically(s.db, async () => {
        await s.db.insertInto('settings').values({ key: LAST_THINNED_KEY, value: '' }).onConflict((oc) => oc.column('key').doNothing()).execute();
        const row = await s.db.selectFrom('settings').select('value').where('key', '=', LAST_THINNED_KEY).forUpdate().executeTakeFirst();
        const last = row?.value ? Date.parse(row.value) : NaN;
        if (now.getTime() - last < THIN_EVERY_MS) return null;
        await s.db.updateTable('settings').set({ value: now.toISOString() }).where('key', '=', LAST_THINNED_KEY).execute();
        // Nobody's job: the studio's own upkeep (administrators see it by the record-less kind in the queue).
        return s.jobs.create(null, HISTORY_THINNING_KIND, null);
      });
      if (id) await s.jobs.enqueue(id, HISTORY_THINNING_KIND, {});
      return id;
    },

    /** Every node that runs jobs asks each hour whether the day's thinning is due (app.ts). */
    startScheduling(everyMs = 3_600_000): () => void {
      return every(everyMs, () => this.queueIfDue(), 'Queueing the scheduled thinning of versions');
    },
  };
}
