import { z } from 'zod';
import { Id } from './common';

/**
 * Permissions, declared once and used by the server (enforcement) and the web app (what to show).
 * Resource roles (catalog §6): limited-viewer reads; viewer reads and copies; editor reads, writes,
 * deletes and copies. The owner and administrators in admin mode can also share and transfer.
 */
export const ResourceRole = z.enum(['limited-viewer', 'viewer', 'editor']);
export type ResourceRole = z.infer<typeof ResourceRole>;
export const Visibility = z.enum(['private', 'public_read']);
export type Visibility = z.infer<typeof Visibility>;

export const ACTIONS = ['read', 'copy', 'write', 'delete', 'share'] as const;
export type Action = (typeof ACTIONS)[number];

/** The caller's effective standing on one resource; `none` sees nothing (404, not 403). */
export type Access = 'none' | ResourceRole | 'owner' | 'admin';

const ROLE_ACTIONS: Record<Access, readonly Action[]> = {
  none: [],
  'limited-viewer': ['read'],
  viewer: ['read', 'copy'],
  editor: ['read', 'write', 'delete', 'copy'],
  owner: ACTIONS,
  admin: ACTIONS,
};

export const can = (access: Access, action: Action): boolean => ROLE_ACTIONS[access].includes(action);

const RANK: Record<Access, number> = { none: 0, 'limited-viewer': 1, viewer: 2, editor: 3, owner: 4, admin: 5 };
export const strongest = (...accesses: Access[]): Access =>
  accesses.reduce<Access>((best, a) => (RANK[a] > RANK[best] ? a : best), 'none');

export const SHARE_TARGETS = ['user', 'organization', 'email'] as const;
export const ShareTarget = z.enum(SHARE_TARGETS);

export const PermissionEntry = z.object({
  id: Id,
  role: ResourceRole,
});
export const PermissionsOfResource = z.object({
  resourceType: z.string(),
  resourceId: Id,
  visibility: Visibility,
  users: z.array(PermissionEntry.extend({ userId: Id, email: z.string(), name: z.string(), seat: z.string().nullable() })),
  organizations: z.array(PermissionEntry.extend({ organizationId: Id, name: z.string() })),
  emails: z.array(PermissionEntry.extend({ email: z.string() })),
});
export type PermissionsOfResource = z.infer<typeof PermissionsOfResource>;

const Email = z.email().max(320);
export const PermissionCreate = z
  .object({
    resourceType: z.string(),
    resourceId: Id,
    role: ResourceRole,
    userId: Id.optional(),
    organizationId: Id.optional(),
    email: Email.optional(),
  })
  .refine((b) => [b.userId, b.organizationId, b.email].filter((v) => v !== undefined).length === 1, {
    message: 'Exactly one of userId, organizationId or email is required',
  });
export const PermissionUpdate = z.object({ role: ResourceRole });

/** The body of POST /{collection}/{id}/share: several targets at once, plus visibility. */
export const ShareBody = z.object({
  users: z.array(z.object({ userId: Id, role: ResourceRole })).max(500).default([]),
  organizations: z.array(z.object({ organizationId: Id, role: ResourceRole })).max(100).default([]),
  emails: z.array(z.object({ email: Email, role: ResourceRole })).max(500).default([]),
  visibility: Visibility.optional(),
});
export type ShareBody = z.infer<typeof ShareBody>;
