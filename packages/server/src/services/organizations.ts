import { randomUUID } from 'node:crypto';
import { StudioError, notFound, type Organization } from '@studio/schema';
import { toCount, type Db } from '../store/db';
import { hashToken, newToken } from '../auth/tokens';
import { addMembers, createOrganization } from './users';
import { sendMail, type MailConfig } from './mail';

interface Page {
  offset: number;
  limit: number;
}

/**
 * Organizations and invitations into them, as administrators manage them (analytics-and-admin.md, ADM-001…020):
 * an organization answers with its maker and viewer counts; an invitation's acceptance token is answered once,
 * when it is made, and stored hashed.
 */
export class OrganizationService {
  constructor(
    private readonly db: Db,
    private readonly mail: MailConfig,
  ) {}

  async list(page: Page): Promise<Organization[]> {
    const ids = await this.db.selectFrom('organizations').select('id').orderBy('name').offset(page.offset).limit(page.limit).execute();
    return this.toWire(ids.map((r) => r.id));
  }

  /** One organization; 404 "Organization not found". */
  async get(id: string): Promise<Organization> {
    const [org] = await this.toWire([id]);
    if (!org) throw notFound('Organization not found');
    return org;
  }

  async create(name: string, makerQuotaPolicy?: number): Promise<Organization> {
    const org = await createOrganization(this.db, name, makerQuotaPolicy);
    return this.get(org.id);
  }

  async update(id: string, change: { name?: string; makerQuotaPolicy?: number }): Promise<Organization> {
    const r = await this.db
      .updateTable('organizations')
      .set({ ...(change.name && { name: change.name }), ...(change.makerQuotaPolicy !== undefined && { maker_quota_policy: change.makerQuotaPolicy }), updated_at: new Date() })
      .where('id', '=', id)
      .executeTakeFirst();
    if (!Number(r.numUpdatedRows)) throw notFound('Organization not found');
    return this.get(id);
  }

  /** Deletes an organization; its members stay as users. */
  async delete(id: string): Promise<void> {
    const r = await this.db.deleteFrom('organizations').where('id', '=', id).executeTakeFirst();
    if (!Number(r.numDeletedRows)) throw notFound('Organization not found');
  }

  /** Makes existing users members with `role` (a member already there gets the role); every user must exist. */
  async link(id: string, userIds: string[], role: 'viewer' | 'maker'): Promise<Organization> {
    await addMembers(this.db, id, userIds, role);
    return this.get(id);
  }

  /** Pending invitations, newest first, with the organization's name and the inviter's email. */
  async invitations(filter: Page & { organizationId?: string; email?: string }) {
    let q = this.db
      .selectFrom('invitations as i')
      .innerJoin('organizations as o', 'o.id', 'i.organization_id')
      .leftJoin('users as u', 'u.id', 'i.invited_by')
      .select(['i.id', 'i.organization_id', 'i.email', 'i.role', 'i.application', 'i.created_at', 'o.name as organization_name', 'u.email as invited_by_email']);
    if (filter.organizationId) q = q.where('i.organization_id', '=', filter.organizationId);
    if (filter.email) q = q.where('i.email', '=', filter.email.toLowerCase());
    const rows = await q.orderBy('i.created_at', 'desc').orderBy('i.id').offset(filter.offset).limit(filter.limit).execute();
    return rows.map((r) => ({
      id: r.id,
      organizationId: r.organization_id,
      organizationName: r.organization_name,
      email: r.email,
      role: r.role,
      application: r.application,
      invitedBy: r.invited_by_email,
      createdAt: new Date(r.created_at).toISOString(),
    }));
  }

  /**
   * An invitation with its one-time token (stored hashed) and the address that accepts it, mailed to the person
   * when SMTP is configured. Inviting an address that already has a pending invitation into the organization
   * sends it again: the same invitation gets a new token (the link handed out before stops working), the role
   * asked now, and today's date — one pending invitation per person and organization.
   */
  async invite(orgId: string, email: string, opts: { role: 'viewer' | 'maker'; application?: string; invitedBy: string | null }) {
    const org = await this.existing(orgId);
    const address = email.toLowerCase();
    const token = newToken('inv_');
    const values = { role: opts.role, application: opts.application ?? null, token_hash: hashToken(token), invited_by: opts.invitedBy, created_at: new Date() };
    const updated = await this.db.updateTable('invitations').set(values).where('organization_id', '=', orgId).where('email', '=', address).returningAll().executeTakeFirst();
    // Two invitations sent at once both find none to resend: the unique (organization, email) index makes the
    // second one the resend of the first, which keeps the first's id (not the one this call made up).
    const id = randomUUID();
    const row =
      updated ??
      (await this.db
        .insertInto('invitations')
        .values({ id, organization_id: orgId, email: address, ...values })
        .onConflict((oc) => oc.columns(['organization_id', 'email']).doUpdateSet(values))
        .returningAll()
        .executeTakeFirstOrThrow());
    const resent = Boolean(updated) || row.id !== id;
    const acceptUrl = `/accept-invitation?token=${token}`;
    const emailed = await this.mailInvitation(org.name, address, acceptUrl);
    return { id: row.id, organizationId: row.organization_id, email: row.email, role: row.role, application: row.application, token, acceptUrl, emailed, resent, createdAt: new Date(row.created_at).toISOString() };
  }

  private async mailInvitation(orgName: string, email: string, acceptUrl: string): Promise<boolean> {
    if (!this.mail.smtpUrl) return false;
    const url = `${this.mail.publicUrl.replace(/\/$/, '')}${acceptUrl}`;
    try {
      return await sendMail(this.mail, [
        {
          to: email,
          subject: `Join ${orgName} on Studio`,
          text: [`You are invited to join ${orgName} on Studio.`, `Create your account here (the link works once): ${url}`].join('\n\n'),
        },
      ]);
    } catch (err) {
      // The call fails as a whole (the invitation is not kept): an invitation nobody received is not "sent".
      throw new StudioError(502, `The invitation email could not be sent: ${(err as Error).message}`);
    }
  }

  async deleteInvitation(id: string): Promise<void> {
    const r = await this.db.deleteFrom('invitations').where('id', '=', id).executeTakeFirst();
    if (!Number(r.numDeletedRows)) throw notFound('Invitation not found');
  }

  /** The organization's name; 404 "Organization not found". */
  private async existing(id: string): Promise<{ name: string }> {
    const org = await this.db.selectFrom('organizations').select('name').where('id', '=', id).executeTakeFirst();
    if (!org) throw notFound('Organization not found');
    return org;
  }

  private async toWire(ids: string[]): Promise<Organization[]> {
    if (!ids.length) return [];
    const rows = await this.db.selectFrom('organizations').selectAll().where('id', 'in', ids).orderBy('name').execute();
    const counts = await this.db
      .selectFrom('memberships')
      .select(['organization_id', 'role', (eb) => eb.fn.countAll().as('n')])
      .where('organization_id', 'in', ids)
      .groupBy(['organization_id', 'role'])
      .execute();
    const count = (id: string, role: string) => toCount(counts.find((c) => c.organization_id === id && c.role === role)?.n);
    return rows.map((o) => ({
      id: o.id,
      name: o.name,
      makerQuotaPolicy: o.maker_quota_policy,
      makerRoleUsersCount: count(o.id, 'maker'),
      viewerRoleUsersCount: count(o.id, 'viewer'),
      createdAt: new Date(o.created_at).toISOString(),
      updatedAt: new Date(o.updated_at).toISOString(),
    }));
  }
}
