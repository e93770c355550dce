import { forbidden, quotaExceeded, type ResourceType } from '@studio/schema';
import type { Db } from '../store/db';
import { toCount } from '../store/db';
import type { Caller } from '../http/caller';

/** Named quota presets (GET /v1/quotapolicies); a user's quotaPolicy is how many records they may own. */
export const QUOTA_POLICIES = [
  { id: 'viewer', name: 'Viewer', value: 0 },
  { id: 'maker', name: 'Maker', value: 100 },
  { id: 'power', name: 'Power maker', value: 1000 },
  { id: 'unlimited', name: 'Unlimited', value: 65535 },
] as const;

/** Resource kinds that count against a user's quota. */
const QUOTA_TYPES: ResourceType[] = ['map', 'dataset', 'insight', 'workbook', 'project', 'data-connection', 'map-asset'];

export async function usageOf(db: Db, userId: string): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom('resources')
    .select(['type', (eb) => eb.fn.countAll().as('n')])
    .where('owner_id', '=', userId)
    .where('is_sample', '=', false)
    .groupBy('type')
    .execute();
  const usage: Record<string, number> = Object.fromEntries(QUOTA_TYPES.map((t) => [t, 0]));
  for (const r of rows) usage[r.type] = toCount(r.n);
  usage.total = QUOTA_TYPES.reduce((s, t) => s + (usage[t] ?? 0), 0);
  return usage;
}

/**
 * Before a create: organization viewers cannot create (403); a maker at their quota gets 402.
 * Administrators are not limited.
 */
export async function assertCanCreate(db: Db, caller: Caller, type: ResourceType): Promise<void> {
  if (caller.isAdmin || !QUOTA_TYPES.includes(type)) return;
  if (caller.memberships.length > 0 && caller.memberships.every((m) => m.role === 'viewer')) {
    throw forbidden('Viewers cannot create records; ask an administrator for a maker seat');
  }
  const usage = await usageOf(db, caller.user.id);
  if ((usage.total ?? 0) >= caller.user.quota_policy) {
    throw quotaExceeded(`Quota exceeded: your quota allows ${caller.user.quota_policy} records`);
  }
}
