import { sql } from 'kysely';
import {
  checkMapStateOnSave,
  describeChanges,
  notFound,
  parseDashboardState,
  parseMapState,
  parseWorkbookState,
  reconstructState,
  stateDelta,
  nextIsFull,
  StudioError,
  type Change,
  type HistoryCollection,
  type HistoryStorage,
  type StoredVersionBody,
  type VersionDetail,
  type VersionDiff,
  type VersionPin,
  type VersionSource,
  type VersionSummary,
} from '@studio/schema';
import type { Db } from '../store/db';
import { toCount } from '../store/db';
import { linkedDatasets, pinsOf } from './dataset-snapshots';
import type { Caller } from '../http/caller';

/** The record kinds that keep versions, and the collection their history is read under. */
export const VERSIONED_TYPES: Record<string, HistoryCollection> = { map: 'maps', insight: 'insights', workbook: 'workbooks' };

/** What a save says about the version it makes (all optional: the SDK and imports send none of it). */
export interface VersionInput {
  source?: VersionSource;
  message?: string | null;
  /** The version the edit was based on: refused with 409 and the changes since when it is not the latest. */
  baseVersion?: number;
  restoredFrom?: number;
  pins?: VersionPin[];
  /** Pin the datasets the record links after the save to the snapshots they have now (dataset-snapshots.ts). */
  pinData?: boolean;
}

/** The stored state upgraded on read through its kind's parser; a state the parser refuses is shown as stored. */
const READ_PARSERS: Record<HistoryCollection, (s: unknown) => unknown> = { maps: parseMapState, insights: parseDashboardState, workbooks: parseWorkbookState };
/** The parsers a restore or duplicate applies as a save does (map saves keep their states as sent: the SDK's and older clients' shapes). */
const SAVE_PARSERS: Partial<Record<HistoryCollection, (s: unknown) => unknown>> = { insights: parseDashboardState, workbooks: parseWorkbookState };

/** The state's own schema version: studioVersion for maps (0 for a bare kepler config), version otherwise. */
export function schemaVersionOf(type: HistoryCollection, state: unknown): number | null {
  if (!state || typeof state !== 'object' || Array.isArray(state)) return null;
  const s = state as Record<string, unknown>;
  const v = type === 'maps' ? (typeof s.studioVersion === 'number' ? s.studioVersion : 'config' in s ? 0 : null) : s.version;
  return typeof v === 'number' && Number.isInteger(v) ? v : null;
}

/** The source a save's caller implies: a browser session saves from the builder, an API key from the API, the Data SDK from the SDK. */
export const sourceOfCaller = (caller: Caller): VersionSource => (caller.via === 'sdk' ? 'sdk' : caller.via === 'api-key' ? 'api' : 'builder');

const SUMMARY_COLUMNS = ['v.n', 'v.created_at', 'v.created_by', 'u.name as created_by_name', 'v.message', 'v.source', 'v.schema_version', 'v.restored_from', 'v.pins'] as const;
interface SummaryRow {
  n: number;
  created_at: Date | string;
  created_by: string | null;
  created_by_name: string | null;
  message: string | null;
  source: VersionSource;
  schema_version: number | null;
  restored_from: number | null;
  pins: VersionPin[];
}
const summaryOf = (r: SummaryRow): VersionSummary => ({
  n: r.n,
  createdAt: new Date(r.created_at).toISOString(),
  createdBy: r.created_by ? { id: r.created_by, name: r.created_by_name ?? '' } : null,
  message: r.message,
  source: r.source,
  schemaVersion: r.schema_version,
  restoredFrom: r.restored_from,
  pins: r.pins ?? [],
});

/** The latest version's number of a record, null before its first. */
export async function latestVersion(db: Db, recordId: string): Promise<{ n: number; chain: number } | null> {
  const r = await db.selectFrom('record_versions').select(['n', 'chain']).where('record_id', '=', recordId).orderBy('n', 'desc').limit(1).executeTakeFirst();
  return r ?? null;
}

/** The latest version numbers of these records (the `version` of their wire form). */
export async function latestVersions(db: Db, recordIds: string[]): Promise<Map<string, number>> {
  if (!recordIds.length) return new Map();
  const rows = await db.selectFrom('record_versions').select(['record_id', sql<number>`max(n)`.as('n')]).where('record_id', 'in', recordIds).groupBy('record_id').execute();
  return new Map(rows.map((r) => [r.record_id, Number(r.n)]));
}

/** Version n's state as saved: its full state and the deltas after it, reconstructed. */
export async function storedState(db: Db, recordId: string, n: number): Promise<unknown> {
  const start = db.selectFrom('record_versions').select(sql<number>`max(n)`.as('n')).where('record_id', '=', recordId).where('kind', '=', 'full').where('n', '<=', n);
  const rows = await db
    .selectFrom('record_versions')
    .select(['kind', 'body'])
    .where('record_id', '=', recordId)
    .where('n', '<=', n)
    .where('n', '>=', start)
    .orderBy('n')
    .execute();
  if (!rows.length) throw notFound('Version not found');
  // The rows were parsed for this call alone: the chain is patched in place, not copied first.
  return reconstructState(rows as StoredVersionBody[], { owned: true });
}

/**
 * Writes the version a save makes, in the save's transaction and before the record's row is written:
 * nothing when the state did not change. `before` is the record's latestState as the caller read it;
 * the row is locked first and read again when another save came in between.
 */
export async function recordVersion(
  trx: Db,
  args: { recordId: string; type: string; before: unknown; beforeUpdatedAt: Date | null; after: unknown; caller: Caller; input: VersionInput; /** The datasets the save links, when it names them (else the record's links). */ datasets?: string[] },
): Promise<number | null> {
  const collection = VERSIONED_TYPES[args.type];
  if (!collection) return null;
  // Every save of a map passes here (builder, API, SDK, import, restore): a structurally broken state is refused first.
  if (collection === 'maps' && args.after != null) checkMapStateOnSave(args.after);
  let before = args.before;
  if (args.beforeUpdatedAt) {
    const locked = await trx.selectFrom('resources').select('updated_at').where('id', '=', args.recordId).forUpdate().executeTakeFirst();
    if (locked && new Date(locked.updated_at).getTime() !== args.beforeUpdatedAt.getTime()) {
      before = (await trx.selectFrom('resources').select('latest_state').where('id', '=', args.recordId).executeTakeFirst())?.latest_state ?? null;
    }
  }
  let last = await latestVersion(trx, args.recordId);
  if (args.input.baseVersion !== undefined) await assertBase(trx, collection, args.recordId, args.input.baseVersion, last?.n ?? null, before);
  const delta = before == null ? undefined : stateDelta(before, args.after);
  if (before != null && delta === undefined) return null;
  if (args.after == null) return null;
  // A record saved before history was kept: its state then becomes version 1, so the new one has something to differ from.
  if (!last && before != null) last = await insertVersion(trx, args.recordId, 1, { kind: 'full', body: before, chain: 0 }, { source: 'api', schemaVersion: schemaVersionOf(collection, before), createdBy: null, message: null });
  const n = (last?.n ?? 0) + 1;
  const full = !last || delta === undefined || nextIsFull(last.chain);
  await insertVersion(trx, args.recordId, n, full ? { kind: 'full', body: args.after, chain: 0 } : { kind: 'delta', body: delta, chain: last!.chain + 1 }, {
    source: args.input.source ?? sourceOfCaller(args.caller),
    schemaVersion: schemaVersionOf(collection, args.after),
    createdBy: args.caller.user.id,
    message: args.input.message ?? null,
    restoredFrom: args.input.restoredFrom ?? null,
    pins: args.input.pinData ? await pinsOf(trx, args.datasets ?? (await linkedDatasets(trx, args.recordId))) : (args.input.pins ?? []),
  });
  return n;
}

async function insertVersion(
  trx: Db,
  recordId: string,
  n: number,
  stored: { kind: 'full' | 'delta'; body: unknown; chain: number },
  meta: { source: VersionSource; schemaVersion: number | null; createdBy: string | null; message: string | null; restoredFrom?: number | null; pins?: VersionPin[] },
) {
  const body = JSON.stringify(stored.body);
  await trx
    .insertInto('record_versions')
    .values({
      record_id: recordId,
      n,
      created_by: meta.createdBy,
      message: meta.message,
      source: meta.source,
      schema_version: meta.schemaVersion,
      restored_from: meta.restoredFrom ?? null,
      pins: JSON.stringify(meta.pins ?? []),
      kind: stored.kind,
      chain: stored.chain,
      body,
      bytes: Buffer.byteLength(body),
    })
    .execute();
  return { n, chain: stored.chain };
}

/** A save based on an older version: 409 with what changed since (the base's state against the latest). */
async function assertBase(trx: Db, collection: HistoryCollection, recordId: string, base: number, latest: number | null, latestState: unknown): Promise<void> {
  if (latest === null || base === latest) return;
  if (base > latest) throw notFound(`Version ${base} not found`);
  const changes = describeChanges(collection, await storedState(trx, recordId, base), latestState);
  throw new VersionConflictError(base, latest, changes);
}

/** 409 naming the latest version and the changes since the one the save was based on. */
export class VersionConflictError extends StudioError {
  constructor(base: number, latest: number, changes: Change[]) {
    const message = `Saved again since version ${base}, which this edit was based on (the latest is version ${latest})`;
    super(409, message, 'Open the latest version, or save again without a base version to overwrite it');
    this.fields = { error: message, latest, changes };
  }
}

/** Reads of a record's history: list, open, diff. Saves write versions through `recordVersion`. */
export class HistoryService {
  constructor(private readonly db: Db) {}

  async list(recordId: string): Promise<VersionSummary[]> {
    const rows = await this.db
      .selectFrom('record_versions as v')
      .leftJoin('users as u', 'u.id', 'v.created_by')
      .select(SUMMARY_COLUMNS)
      .where('v.record_id', '=', recordId)
      .orderBy('v.n', 'desc')
      .execute();
    return rows.map((r) => summaryOf(r as SummaryRow));
  }

  async summary(recordId: string, n: number): Promise<VersionSummary> {
    const r = await this.db.selectFrom('record_versions as v').leftJoin('users as u', 'u.id', 'v.created_by').select(SUMMARY_COLUMNS).where('v.record_id', '=', recordId).where('v.n', '=', n).executeTakeFirst();
    if (!r) throw notFound(`Version ${n} not found`);
    return summaryOf(r as SummaryRow);
  }

  /** Version n as saved, upgraded through its kind's parser. */
  async open(type: HistoryCollection, recordId: string, n: number): Promise<VersionDetail> {
    const summary = await this.summary(recordId, n);
    return { ...summary, state: readState(type, await storedState(this.db, recordId, n)) };
  }

  /** The state to restore or duplicate from: as saved, brought to the current version (422 for one this studio cannot read). */
  async stateOf(type: HistoryCollection, recordId: string, n: number): Promise<unknown> {
    await this.summary(recordId, n);
    const state = await storedState(this.db, recordId, n);
    const parse = SAVE_PARSERS[type];
    return parse ? parse(state) : state;
  }

  async diff(type: HistoryCollection, recordId: string, a: number, b: number): Promise<VersionDiff> {
    const [before, after] = await Promise.all([this.open(type, recordId, a), this.open(type, recordId, b)]);
    return { from: a, to: b, changes: describeChanges(type, before.state, after.state) };
  }

  /** Bytes the versions of all records keep, and the replaced dataset data kept as snapshots (the administrators' storage answer). */
  async bytesUsed(): Promise<HistoryStorage> {
    const r = await this.db.selectFrom('record_versions').select([sql<number>`count(*)`.as('versions'), sql<number>`coalesce(sum(bytes), 0)`.as('bytes')]).executeTakeFirst();
    // A snapshot of a dataset's current data (pinned, not replaced) is its data, not extra storage.
    const kept = await this.db
      .selectFrom('dataset_snapshots')
      .select([sql<number>`count(*)`.as('snapshots'), sql<number>`coalesce(sum((metadata->>'byteSize')::bigint), 0)`.as('bytes')])
      .where('replaced_at', 'is not', null)
      .executeTakeFirst();
    return { versions: toCount(r?.versions), bytes: toCount(r?.bytes), snapshots: toCount(kept?.snapshots), snapshotBytes: toCount(kept?.bytes) };
  }
}

function readState(type: HistoryCollection, state: unknown): unknown {
  try {
    return READ_PARSERS[type](state);
  } catch {
    return state;
  }
}

