import { randomUUID } from 'node:crypto';
import type { ColumnType, Kysely } from 'kysely';
import { StudioError, notFound, parseDashboardState, type Publication, type PublicationInfo, type PublicationKind } from '@studio/schema';
import type { Db } from '../../store/db';
import type { ResourceRow } from '../records';
import { hashPassword, verifyPassword } from '../../auth/passwords';
import type { FailureThrottle, MapGrants } from '../rate-limits';
import { PASSWORD_REQUIRED } from '../publishing';
import { datasetsOfState } from './widget-pipeline';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

/** Table of migration 007: snapshots of dashboards published as insights or sent as reports. */
interface PublicationsTable {
  id: string;
  kind: 'insight' | 'report';
  resource_id: string;
  name: string;
  description: string;
  latest_state: ColumnType<unknown, string, string>;
  dataset_ids: ColumnType<unknown, string, string>;
  password_hash: string | null;
  published_by: string | null;
  published_at: Timestamp;
  updated_at: Timestamp;
  views: ColumnType<number, number | undefined, number>;
}
interface InvitationsTable {
  report_id: string;
  email: string;
  description: string;
  invited_by: string | null;
  invited_at: Timestamp;
}
type Tables = { publications: PublicationsTable; report_invitations: InvitationsTable };
type Row = { id: string; kind: 'insight' | 'report'; resource_id: string; name: string; description: string; latest_state: unknown; dataset_ids: unknown; password_hash: string | null; published_at: Date; updated_at: Date; views: number };

export type { Publication, PublicationInfo, PublicationKind };

const iso = (d: Date | string) => new Date(d).toISOString();
const idList = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : typeof v === 'string' ? (JSON.parse(v) as string[]) : []);
const parsed = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v);

function infoOf(r: Row): PublicationInfo {
  return {
    id: r.id,
    kind: r.kind,
    insightId: r.resource_id,
    name: r.name,
    description: r.description,
    publishedAt: iso(r.published_at),
    updatedAt: iso(r.updated_at),
    passwordProtected: r.password_hash !== null,
    datasetIds: idList(r.dataset_ids),
    views: Number(r.views),
  };
}

/** How a reader of a protected publication gets in (as for maps: access, a grant, or the password). */
export interface ReaderKey {
  canBypass: boolean;
  password?: string;
  grant?: string;
  address: string;
}

export interface PublishOptions {
  /** A string sets the password, null or '' removes it, absent keeps it. */
  password?: string | null;
  title?: string;
  description?: string;
  /** Datasets the readers may reach: all must be datasets the dashboard reads. */
  datasets?: string[];
}

const hashOf = async (password: string | null) => (password ? hashPassword(password) : null);

/**
 * The dashboard's saved state and the datasets a snapshot of it lets readers reach: `wanted` when given
 * (422 for one the dashboard does not read), else `fallback` of the datasets it reads.
 */
function snapshotOf(insight: ResourceRow, wanted: string[] | undefined, fallback: (named: Set<string>) => string[]) {
  if (insight.latest_state === null || insight.latest_state === undefined) throw new StudioError(422, 'Save the dashboard before publishing it');
  const state = parseDashboardState(insight.latest_state);
  const named = datasetsOfState(state);
  const datasets = wanted ?? fallback(named);
  const foreign = datasets.find((d) => !named.has(d));
  if (foreign) throw new StudioError(422, `Dataset ${foreign} is not used by this dashboard`);
  return { state, datasets };
}

/**
 * Insight publications and reports. A publication snapshots the dashboard's saved state and the
 * datasets it names; readers run only the snapshot's widget queries, under the dashboard owner's grant.
 */
export class PublicationService {
  private readonly db: Kysely<Tables>;
  constructor(
    catalog: Db,
    private readonly unlocking: { mapPassword: FailureThrottle; grants: MapGrants },
  ) {
    this.db = catalog.withTables<Tables>() as unknown as Kysely<Tables>;
  }

  /**
   * Snapshots `insight`. kind 'insight': the one publication of the insight (publishing again replaces
   * it; an absent password keeps the previous one). kind 'report': a new snapshot with its own id.
   * `datasets`, when given, must all be datasets the dashboard names (a report may leave some out).
   */
  async publish(insight: ResourceRow, kind: PublicationKind, by: string, opts: PublishOptions): Promise<PublicationInfo> {
    const { state, datasets } = snapshotOf(insight, opts.datasets, (named) => [...named]);
    const id = kind === 'insight' ? insight.id : randomUUID();
    const previous = kind === 'insight' ? await this.row(id, 'insight') : undefined;
    const passwordHash = opts.password === undefined ? (previous?.password_hash ?? null) : await hashOf(opts.password);
    const values = {
      name: opts.title ?? insight.name,
      description: opts.description ?? insight.description,
      latest_state: JSON.stringify(state),
      dataset_ids: JSON.stringify(datasets),
      password_hash: passwordHash,
      published_by: by,
      published_at: new Date(),
      updated_at: new Date(),
    };
    await this.db
      .insertInto('publications')
      .values({ id, kind, resource_id: insight.id, ...values })
      .onConflict((oc) => oc.column('id').doUpdateSet(values))
      .execute();
    return infoOf((await this.row(id, kind))!);
  }

  /** A report re-snapshotted from its dashboard's current state, with new options (absent ones kept). */
  async update(report: PublicationInfo, insight: ResourceRow, by: string, opts: PublishOptions): Promise<PublicationInfo> {
    const { state, datasets } = snapshotOf(insight, opts.datasets, (named) => report.datasetIds.filter((d) => named.has(d)));
    const set: Partial<Record<keyof PublicationsTable, unknown>> = {
      latest_state: JSON.stringify(state),
      dataset_ids: JSON.stringify(datasets),
      published_by: by,
      updated_at: new Date(),
      ...(opts.title !== undefined && { name: opts.title }),
      ...(opts.description !== undefined && { description: opts.description }),
    };
    if (opts.password !== undefined) set.password_hash = await hashOf(opts.password);
    await this.db.updateTable('publications').set(set as never).where('id', '=', report.id).execute();
    return infoOf((await this.row(report.id, 'report'))!);
  }

  async unpublish(insightId: string): Promise<boolean> {
    const r = await this.db.deleteFrom('publications').where('id', '=', insightId).where('kind', '=', 'insight').executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  private async row(id: string, kind: PublicationKind): Promise<Row | undefined> {
    return (await this.db.selectFrom('publications').selectAll().where('id', '=', id).where('kind', '=', kind).executeTakeFirst()) as Row | undefined;
  }

  async info(id: string, kind: PublicationKind): Promise<PublicationInfo | undefined> {
    const r = await this.row(id, kind);
    return r && infoOf(r);
  }

  /** Insight publications of the given insights (unknown or unpublished ones are left out). */
  async infos(insightIds: string[]): Promise<PublicationInfo[]> {
    if (insightIds.length === 0) return [];
    const rows = await this.db.selectFrom('publications').selectAll().where('kind', '=', 'insight').where('id', 'in', insightIds).orderBy('published_at', 'desc').execute();
    return (rows as Row[]).map(infoOf);
  }

  /** Publications of insights owned by `ownerId`, newest first. */
  async ofOwner(ownerId: string, kind: PublicationKind): Promise<PublicationInfo[]> {
    const rows = await this.db
      .withTables<{ resources: { id: string; owner_id: string } }>()
      .selectFrom('publications as p')
      .innerJoin('resources as r', 'r.id', 'p.resource_id')
      .selectAll('p')
      .where('r.owner_id', '=', ownerId)
      .where('p.kind', '=', kind)
      .orderBy('p.published_at', 'desc')
      .execute();
    return (rows as unknown as Row[]).map(infoOf);
  }

  /**
   * The snapshot for a reader. A protected one needs the password (401 with details passwordRequired
   * when missing, 403 when wrong, 429 while wrong attempts back off) unless `canBypass` or a grant.
   * `keyOf` gets the dashboard's id, since a report's reader may be able to read the dashboard itself.
   */
  async open(id: string, kind: PublicationKind, keyOf: (insightId: string) => Promise<ReaderKey>, countView: boolean): Promise<Publication> {
    return (await this.opened(id, kind, keyOf, countView)).publication;
  }

  /** open() for the password, with a grant later calls send instead of it (one scrypt per reader). */
  async unlock(id: string, kind: PublicationKind, password: string, address: string) {
    const { row, publication } = await this.opened(id, kind, async () => ({ canBypass: false, password, address }), true);
    return { publication, grant: row.password_hash === null ? null : this.unlocking.grants.issue(id, row.password_hash) };
  }

  private async opened(id: string, kind: PublicationKind, keyOf: (insightId: string) => Promise<ReaderKey>, countView: boolean) {
    const row = await this.row(id, kind);
    if (!row) throw notFound(kind === 'insight' ? 'Published insight not found' : 'Report not found');
    // The key (which may look up the caller's access) is built only for a protected publication.
    if (row.password_hash !== null) await this.assertPassword(row, await keyOf(row.resource_id));
    if (countView) await this.db.updateTable('publications').set((eb) => ({ views: eb('views', '+', 1) })).where('id', '=', id).execute();
    const publication: Publication = { ...infoOf(row), latestState: parseDashboardState(parsed(row.latest_state)) };
    return { row, publication };
  }

  private async assertPassword(r: Row, key: ReaderKey): Promise<void> {
    const hash = r.password_hash;
    if (hash === null || key.canBypass) return;
    if (key.grant && this.unlocking.grants.verify(r.id, hash, key.grant)) return;
    const what = r.kind === 'insight' ? 'dashboard' : 'report';
    if (!key.password) throw new StudioError(401, `This ${what} is protected by a password`, PASSWORD_REQUIRED);
    const password = key.password;
    const ok = await this.unlocking.mapPassword.attempt(r.id, key.address, () => verifyPassword(password, hash));
    if (!ok) throw new StudioError(403, `Wrong password for this ${what}`, PASSWORD_REQUIRED);
  }

  /** Records who a report was sent to (sending again to an address renews its invitation). */
  async invite(reportId: string, emails: string[], description: string, by: string): Promise<void> {
    await this.db
      .insertInto('report_invitations')
      .values(emails.map((email) => ({ report_id: reportId, email, description, invited_by: by })))
      .onConflict((oc) => oc.columns(['report_id', 'email']).doUpdateSet((eb) => ({ description: eb.ref('excluded.description'), invited_at: new Date() })))
      .execute();
  }
}
