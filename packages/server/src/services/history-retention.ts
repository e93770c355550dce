import { applyStateDelta, DEFAULT_HISTORY_RETENTION, rebaseChain, type HistoryRetention } from '@studio/schema';
import type { Db } from '../store/db';
import { atomically } from '../store/unit-of-work';

const DAY_MS = 86_400_000;

/** Monday-based week number since the epoch (1970-01-01 was a Thursday): the week a version is kept for. */
const weekOf = (t: number) => Math.floor((t / DAY_MS + 3) / 7);

/**
 * The versions retention keeps (#51): every one younger than `keepAllDays`, the last of each UTC day until
 * `dailyForDays`, the last of each week after that, and always the latest. `versions` oldest first.
 */
export function versionsToKeep(versions: readonly { n: number; createdAt: Date }[], now: Date, retention: HistoryRetention = DEFAULT_HISTORY_RETENTION): Set<number> {
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
export async function thinRecordVersions(db: Db, recordId: string, now: Date, retention?: HistoryRetention): Promise<number> {
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
export async function thinAllVersions(db: Db, now: Date, retention?: HistoryRetention): Promise<number> {
  const cutoff = new Date(now.getTime() - (retention ?? DEFAULT_HISTORY_RETENTION).keepAllDays * DAY_MS);
  // Only records with a version past the keep-all period can lose any.
  const records = await db.selectFrom('record_versions').select('record_id').where('created_at', '<', cutoff).distinct().execute();
  let removed = 0;
  for (const r of records) removed += await thinRecordVersions(db, r.record_id, now, retention);
  return removed;
}
