import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable, ColumnType } from 'kysely';
import { StudioError, badInput, forbidden, notFound } from '@studio/schema';
import type { Db } from '../store/db';
import type { Caller } from '../http/caller';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Json<T> = ColumnType<T, string | undefined, string>;

export interface DatasetIds { places: string; devices: string; visits: string }

/** Tables of migration 004-bi, kept here so the shared catalog types stay untouched. */
export type BiTables = {
  bi_analytic_set_configs: {
    id: string; group_id: string; organization_id: string;
    datasets: ColumnType<DatasetIds | null, string | null | undefined, string | null>;
    template_parameters: Json<Record<string, unknown>>;
    template_overrides: Json<Record<string, unknown>>;
    created_by: string | null; created_at: Timestamp; updated_at: Timestamp;
  };
  bi_query_param_configs: {
    id: string; group_id: string; organization_id: string | null;
    parameters: Json<Record<string, unknown>>;
    created_by: string | null; created_at: Timestamp; updated_at: Timestamp;
  };
  bi_shared_parameters: {
    id: string; owner_id: string; organization_id: string | null; group_id: string; template_id: string; name: string;
    parameters: Json<Record<string, unknown>>; created_at: Timestamp; updated_at: Timestamp;
  };
  bi_shared_parameter_invitations: {
    id: string; shared_parameters_id: string; email: string; description: string; invited_by: string | null; created_at: Timestamp;
  };
};
export type BiDb = Kysely<BiTables>;
export type AnalyticSetConfigRow = Selectable<BiTables['bi_analytic_set_configs']>;
export type QueryParamConfigRow = Selectable<BiTables['bi_query_param_configs']>;

const iso = (d: Date | string) => (d instanceof Date ? d.toISOString() : String(d));

export const configToWire = (r: AnalyticSetConfigRow) => ({
  id: r.id, groupId: r.group_id, orgId: r.organization_id, datasets: r.datasets ?? null,
  templateParameters: r.template_parameters ?? {}, templateOverrides: r.template_overrides ?? {},
  createdBy: r.created_by, createdAt: iso(r.created_at), updatedAt: iso(r.updated_at),
});
export const paramConfigToWire = (r: QueryParamConfigRow) => ({
  id: r.id, groupId: r.group_id, orgId: r.organization_id, parameters: r.parameters ?? {},
  createdBy: r.created_by, createdAt: iso(r.created_at), updatedAt: iso(r.updated_at),
});

export const CONFIG_NOT_FOUND = 'The requested config was not found';
export const MULTIPLE_CONFIGS = 'Multiple configs found for template group and organization';

/** Who may read or write an organization's configs: administrators, its members (read), its makers (write). */
export function assertOrgAccess(caller: Caller, orgId: string | null, write: boolean, hide = false): void {
  if (caller.isAdmin) return;
  const m = orgId ? caller.memberships.find((x) => x.organization_id === orgId) : undefined;
  if (!m) throw hide ? notFound(CONFIG_NOT_FOUND) : forbidden('You are not a member of this organization');
  if (write && m.role !== 'maker') throw forbidden('Only makers of the organization may change its analytic-set configs');
}

/** Catalog access of the BI configs; permission checks live in the routes' handlers (see docs/analytics.md). */
export class BiStore {
  readonly db: BiDb;
  constructor(db: Db) {
    this.db = db.withTables<BiTables>() as unknown as BiDb;
  }

  /** The spec's lookup: none is 404, more than one is 500 (the create path never makes a second one). */
  async analyticConfigFor(groupId: string, orgId: string): Promise<AnalyticSetConfigRow | null> {
    const rows = await this.db.selectFrom('bi_analytic_set_configs').selectAll()
      .where('group_id', '=', groupId).where('organization_id', '=', orgId).limit(2).execute();
    if (rows.length > 1) throw new StudioError(500, MULTIPLE_CONFIGS);
    return rows[0] ?? null;
  }

  async analyticConfig(id: string): Promise<AnalyticSetConfigRow> {
    const row = await this.db.selectFrom('bi_analytic_set_configs').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound(CONFIG_NOT_FOUND);
    return row;
  }

  async insertAnalyticConfig(v: { groupId: string; orgId: string; datasets: DatasetIds | null; templateParameters: Record<string, unknown>; templateOverrides: Record<string, unknown>; by: string }) {
    if (await this.analyticConfigFor(v.groupId, v.orgId)) {
      throw new StudioError(409, 'This organization already has a config for the group; update it instead');
    }
    const id = randomUUID();
    await this.db.insertInto('bi_analytic_set_configs').values({
      id, group_id: v.groupId, organization_id: v.orgId, datasets: v.datasets ? JSON.stringify(v.datasets) : null,
      template_parameters: JSON.stringify(v.templateParameters), template_overrides: JSON.stringify(v.templateOverrides), created_by: v.by,
    }).execute();
    return this.analyticConfig(id);
  }

  async updateAnalyticConfig(id: string, v: { datasets: DatasetIds | null; templateParameters: Record<string, unknown>; templateOverrides: Record<string, unknown> }) {
    await this.db.updateTable('bi_analytic_set_configs').set({
      datasets: v.datasets ? JSON.stringify(v.datasets) : null, template_parameters: JSON.stringify(v.templateParameters),
      template_overrides: JSON.stringify(v.templateOverrides), updated_at: new Date(),
    }).where('id', '=', id).execute();
    return this.analyticConfig(id);
  }

  async deleteAnalyticConfig(id: string) {
    await this.db.deleteFrom('bi_analytic_set_configs').where('id', '=', id).execute();
  }

  /** orgId null = the group's default. */
  async paramConfigFor(groupId: string, orgId: string | null): Promise<QueryParamConfigRow | null> {
    let q = this.db.selectFrom('bi_query_param_configs').selectAll().where('group_id', '=', groupId);
    q = orgId ? q.where('organization_id', '=', orgId) : q.where('organization_id', 'is', null);
    const rows = await q.limit(2).execute();
    if (rows.length > 1) throw new StudioError(500, MULTIPLE_CONFIGS);
    return rows[0] ?? null;
  }

  async paramConfig(id: string): Promise<QueryParamConfigRow> {
    const row = await this.db.selectFrom('bi_query_param_configs').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound(CONFIG_NOT_FOUND);
    return row;
  }

  async upsertParamConfig(groupId: string, orgId: string | null, parameters: Record<string, unknown>, by: string, mustBeNew = false) {
    const existing = await this.paramConfigFor(groupId, orgId);
    if (existing && mustBeNew) throw new StudioError(409, 'This organization already has a query-parameter config for the group; update it instead');
    if (existing) return this.updateParamConfig(existing.id, parameters);
    const id = randomUUID();
    await this.db.insertInto('bi_query_param_configs').values({
      id, group_id: groupId, organization_id: orgId, parameters: JSON.stringify(parameters), created_by: by,
    }).execute();
    return this.paramConfig(id);
  }

  async updateParamConfig(id: string, parameters: Record<string, unknown>) {
    await this.db.updateTable('bi_query_param_configs').set({ parameters: JSON.stringify(parameters), updated_at: new Date() })
      .where('id', '=', id).execute();
    return this.paramConfig(id);
  }

  async deleteParamConfig(id: string) {
    await this.db.deleteFrom('bi_query_param_configs').where('id', '=', id).execute();
  }

  async sharedParameters(id: string) {
    const row = await this.db.selectFrom('bi_shared_parameters').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound('Shared parameters not found');
    const invitations = await this.db.selectFrom('bi_shared_parameter_invitations').selectAll()
      .where('shared_parameters_id', '=', id).orderBy('created_at').orderBy('email').execute();
    return { row, invitations };
  }

  /** Owner, administrators, members of its organization and invited e-mails may read a saved set. */
  async readableSharedParameters(caller: Caller, id: string) {
    const found = await this.sharedParameters(id);
    const { row, invitations } = found;
    const ok = caller.isAdmin || row.owner_id === caller.user.id
      || (row.organization_id !== null && caller.orgIds.includes(row.organization_id))
      || invitations.some((i) => i.email.toLowerCase() === caller.user.email.toLowerCase());
    if (!ok) throw notFound('Shared parameters not found');
    return found;
  }

  async insertSharedParameters(v: { owner: string; orgId: string | null; groupId: string; templateId: string; name: string; parameters: Record<string, unknown> }) {
    const id = randomUUID();
    await this.db.insertInto('bi_shared_parameters').values({
      id, owner_id: v.owner, organization_id: v.orgId, group_id: v.groupId, template_id: v.templateId, name: v.name,
      parameters: JSON.stringify(v.parameters),
    }).execute();
    return this.sharedParameters(id);
  }

  async invite(id: string, emails: string[], description: string, by: string) {
    for (const email of emails) {
      const lower = email.toLowerCase();
      const existing = await this.db.selectFrom('bi_shared_parameter_invitations').select('id')
        .where('shared_parameters_id', '=', id).where('email', '=', lower).executeTakeFirst();
      if (existing) {
        await this.db.updateTable('bi_shared_parameter_invitations').set({ description }).where('id', '=', existing.id).execute();
      } else {
        await this.db.insertInto('bi_shared_parameter_invitations')
          .values({ id: randomUUID(), shared_parameters_id: id, email: lower, description, invited_by: by }).execute();
      }
    }
    return this.sharedParameters(id);
  }
}

export const sharedToWire = ({ row, invitations }: Awaited<ReturnType<BiStore['sharedParameters']>>, withInvitations: boolean) => ({
  id: row.id, ownerId: row.owner_id, orgId: row.organization_id, groupId: row.group_id, templateId: row.template_id,
  name: row.name, parameters: row.parameters, createdAt: iso(row.created_at), updatedAt: iso(row.updated_at),
  ...(withInvitations ? { invitations: invitations.map((i) => ({ email: i.email, description: i.description, createdAt: iso(i.created_at) })) } : {}),
});

export const assertEmails = (emails: string[]) => {
  const bad = emails.filter((e) => !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(e));
  if (bad.length) throw badInput('Invalid e-mail address', bad.slice(0, 5).join(', '));
};
