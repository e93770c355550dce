import type { z } from 'zod';
import { RestoreBody, StudioRecord, VersionConflict, VersionDetail, VersionDiff, VersionList, VersionSummary, type HistoryCollection, type RecordUpdate, type VersionedSaveFields } from '@studio/schema';
import { StudioApiError } from './errors';
import type { StudioClient } from './client';

/** A save that may name the version it was based on and carry a message (#51). */
export type VersionedSave = Partial<RecordUpdate> & z.input<typeof VersionedSaveFields>;

/**
 * The history calls of one collection (maps, insights = dashboards, workbooks), typed and checked by the
 * contract in @studio/schema (history.ts): list, open, diff, restore, duplicate from a version, and the
 * record's save with a version message and base version.
 */
export function historyCalls(client: StudioClient, collection: HistoryCollection) {
  const versions = (id: string) => `/v1/${collection}/${id}/versions`;
  return {
    /** Every kept version, newest first. */
    list: (id: string) => client.request<VersionList>('GET', versions(id), { schema: VersionList }).then((r) => r.items),
    /** One version with its state as saved then (upgraded to today's schema version). */
    get: (id: string, n: number) => client.request<VersionDetail>('GET', `${versions(id)}/${n}`, { schema: VersionDetail }),
    /** What changed from version `a` to version `b`, in the thing's terms. */
    diff: (id: string, a: number, b: number) => client.request<VersionDiff>('GET', `${versions(id)}/${a}/diff/${b}`, { schema: VersionDiff }),
    /** Makes version `n`'s state the latest, as a new version (source 'restore'). */
    restore: (id: string, n: number, body: z.input<typeof RestoreBody> = {}) =>
      client.request<VersionSummary>('POST', `${versions(id)}/${n}/restore`, { body: RestoreBody.parse(body), schema: VersionSummary }),
    /** A new record (the caller's) from version `n`'s state. */
    duplicate: (id: string, n: number) => client.request<{ item: StudioRecord }>('POST', `${versions(id)}/${n}/duplicate`).then((r) => StudioRecord.parse(r.item)),
    /**
     * The record's save (PUT) with `versionMessage` and `baseVersion`; refused with 409 and the changes made
     * meanwhile (`versionConflictOf`) when `baseVersion` is not the latest.
     */
    save: (id: string, body: VersionedSave, q: { acquireLock?: boolean } = {}) =>
      client.request<{ item: StudioRecord }>('PUT', `/v1/${collection}/${id}`, { body, query: { acquireLock: q.acquireLock || undefined } }).then((r) => r.item),
  };
}
export type HistoryCalls = ReturnType<typeof historyCalls>;

/** The "someone saved meanwhile" answer of a versioned save (409 with the latest version and its changes), or null. */
export function versionConflictOf(e: unknown): VersionConflict | null {
  if (!(e instanceof StudioApiError) || e.status !== 409) return null;
  const parsed = VersionConflict.safeParse(e.body);
  return parsed.success ? parsed.data : null;
}
