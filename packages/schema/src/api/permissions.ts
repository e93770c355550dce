import { z } from 'zod';
import { Id, QueryBool, itemOf } from '../common';
import { PermissionCreate, PermissionUpdate, PermissionsOfResource } from '../permissions';
import { ResourceType } from '../records';
import { contract } from './contract';

const tag = 'permissions';
const AdminQuery = z.object({ isAdmin: QueryBool.optional() });
const IdParams = z.object({ id: Id });

/** Sharing (catalog §7 Permissions): who a resource is shared with, grants (one or many), role changes, revocation. */
export const permissionCalls = {
  of: contract({
    spec: ['CAT-125'],
    method: 'GET',
    url: '/v1/permissions/{resourceType}/{resourceId}',
    summary: 'Who a resource is shared with: organizations, users, emails',
    tag,
    auth: 'user',
    params: z.object({ resourceType: ResourceType, resourceId: Id }),
    query: AdminQuery,
    resource: { type: { param: 'resourceType' }, param: 'resourceId', action: 'read' },
    response: itemOf(PermissionsOfResource),
  }),
  grant: contract({
    spec: ['CAT-126'],
    method: 'POST',
    url: '/v1/permissions',
    summary: 'Grant a role on a resource to a user, an organization or an email',
    tag,
    auth: 'user',
    query: AdminQuery,
    body: PermissionCreate,
    status: 201,
    response: itemOf(PermissionsOfResource),
  }),
  grantMany: contract({
    spec: ['CAT-129'],
    method: 'POST',
    url: '/v1/permissions/bulk',
    summary: 'Grant several roles at once; all or nothing',
    tag,
    auth: 'user',
    query: AdminQuery,
    body: z.object({ items: z.array(PermissionCreate).min(1).max(500) }),
    response: z.object({ items: z.array(PermissionsOfResource) }),
  }),
  update: contract({
    spec: ['CAT-127'],
    method: 'PUT',
    url: '/v1/permissions/{id}',
    summary: "Change a permission's role",
    tag,
    auth: 'user',
    params: IdParams,
    query: AdminQuery,
    body: PermissionUpdate,
    response: itemOf(PermissionsOfResource),
  }),
  revoke: contract({ spec: ['CAT-128'], method: 'DELETE', url: '/v1/permissions/{id}', summary: 'Revoke a permission', tag, auth: 'user', params: IdParams, query: AdminQuery, status: 204 }),
};
