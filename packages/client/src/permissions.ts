import { permissionCalls, type BodyOf, type ResourceRole, type ResourceType } from '@studio/schema';
import type { HttpClient } from './http';

/** One grant of POST /v1/permissions: exactly one of userId, organizationId, email. */
export type PermissionGrant = BodyOf<typeof permissionCalls.grantMany>['items'][number];

/** Sharing: who a resource is shared with, grants, role changes, revocation. */
export function permissionsClient(c: HttpClient) {
  return {
    of: (resourceType: ResourceType, resourceId: string) => c.call(permissionCalls.of, { params: { resourceType, resourceId } }).then((r) => r.item),
    revoke: (id: string) => c.call(permissionCalls.revoke, { params: { id } }),
    /** Grants several roles at once, all or nothing; answers the permissions of each resource. */
    grantMany: (items: PermissionGrant[]) => c.call(permissionCalls.grantMany, { body: { items } }),
    update: (id: string, role: ResourceRole) => c.call(permissionCalls.update, { params: { id }, body: { role } }),
  };
}
