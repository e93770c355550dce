import { adminCalls, type AuditLogFilter, type QueryOf, type ResourceType, type Seat, type Visibility } from '@studio/schema';
import type { HttpClient } from './http';

type AuditQuery = Partial<AuditLogFilter> & Pick<QueryOf<typeof adminCalls.auditLogs>, 'offset' | 'limit'>;

/** Administrators' calls, typed by packages/schema/src/api/admin.ts: organizations, invitations, users and their rights, the audit log, merges. */
export function adminClient(c: HttpClient) {
  return {
    organizations: () => c.call(adminCalls.organizations, {}),
    createOrganization: (name: string) => c.call(adminCalls.createOrganization, { body: { name } }).then((r) => r.item),
    // Asked by email, the call answers one user.
    findUserByEmail: (email: string) => c.call(adminCalls.findUsers, { query: { email } }).then((r) => ('item' in r ? r.item : r.items[0]!)),
    /** ADM-002: invites an address into an organization, or sends a pending invitation again with a new link. */
    invite: (orgId: string, email: string, role: 'viewer' | 'maker' = 'maker') => c.call(adminCalls.invite, { params: { orgId, email }, query: { role } }).then((r) => r.item),
    /** ADM-001: pending invitations, newest first. */
    invitations: (q: QueryOf<typeof adminCalls.invitations> = {}) => c.call(adminCalls.invitations, { query: q }).then((r) => r.items),
    /** ADM-003: deletes a pending invitation; its link stops working. */
    deleteInvitation: (id: string) => c.call(adminCalls.deleteInvitation, { params: { id } }),
    setVisibility: (resourceType: ResourceType, id: string, privacy: Visibility) => c.call(adminCalls.setVisibility, { params: { resourceType, id }, body: { privacy } }).then((r) => r.item),
    /** ADM-004: a page of the audit log, newest first, narrowed by the filter. */
    auditLogs: (q: AuditQuery = {}) => c.call(adminCalls.auditLogs, { query: q }),
    /** Every entry the filter matches as a CSV file (at most AUDIT_EXPORT_MAX). */
    auditLogCsv: (q: Partial<AuditLogFilter> = {}) => c.callRaw(adminCalls.auditLogs, { query: { ...q, format: 'csv' } }).then((r) => r.blob()),
    /** ADM-007: every user (at most 1,000), each with memberships, seats and quota. */
    users: () => c.call(adminCalls.findUsers, {}).then((r) => ('items' in r ? r : { items: [r.item] })),
    /** ADM-009: a member's seat in one organization (a viewer seat makes them a viewer, any other a maker). */
    setSeat: (userId: string, orgId: string, seat: Seat) => c.call(adminCalls.setSeat, { params: { id: userId, orgId, seat } }).then((r) => r.item),
    /** ADM-014: the named quota presets (Viewer 0, Maker 100, …). */
    quotaPolicies: () => c.call(adminCalls.quotaPolicies, {}).then((r) => r.items),
    /** ADM-023: users who own more records than their quota; with `dryRun: false` their quotas are raised to their usage. */
    reconcileQuota: (dryRun: boolean) => c.call(adminCalls.reconcileQuota, { body: { quotaType: 'records', dryRun } }).then((r) => r.item),
    /** ADM-024: an organization's default tags ("Needs review", "Published"); answers those made now. */
    provisionAccount: (organizationId: string) => c.call(adminCalls.provisionAccount, { body: { organizationId } }).then((r) => r.item),
    /** ADM-008: how many records a user may own (0..65535). */
    setQuota: (userId: string, policy: number) => c.call(adminCalls.setQuota, { params: { id: userId, policy } }),
    /** Saved data connections the server's network rule (STUDIO_CONNECTION_HOSTS) refuses. */
    refusedConnections: () => c.call(adminCalls.refusedConnections, {}).then((r) => r.items),
    /** What merging `secondaryIds` into `primaryId` would move and delete; changes nothing. */
    mergePreview: (primaryId: string, secondaryIds: string[]) => c.call(adminCalls.mergePreview, { query: { primaryId, secondaryIds: secondaryIds.join(',') } }).then((r) => r.item),
    /** ADM-022: the secondaries' records, shares, tags and memberships move to the primary; the secondaries are deleted. */
    mergeAccounts: (primaryId: string, secondaryIds: string[]) => c.call(adminCalls.mergeAccounts, { body: { primaryId, secondaryIds } }).then((r) => r.item),
  };
}
