import { badInput, lockCalls, permissionCalls, type ResourceType } from '@studio/schema';
import { defineRoute, requireCaller } from '../http/route';
import { recordItem } from '../http/record-answers';
import type { Services } from '../services';
import type { Caller } from '../http/caller';

/** A permission entry's resource, guarded for `share` like the resource itself. */
async function permissionWithResource(services: Services, caller: Caller | null, id: string, adminMode: boolean) {
  const perm = await services.sharing.permissionEntry(id);
  const { resource } = await services.access.guard(caller, perm.type as ResourceType, perm.resource_id, 'share', adminMode);
  return { perm, resource };
}

export const permissionRoutes = [
  defineRoute(permissionCalls.of, {
    handler: async (ctx) => ({ item: await ctx.services.sharing.permissionsOf(ctx.resource!) }),
  }),
  defineRoute(permissionCalls.grant, {
    handler: async (ctx) => {
      const b = ctx.body;
      const { resource } = await ctx.services.access.guard(ctx.caller, b.resourceType as ResourceType, b.resourceId, 'share', ctx.adminMode);
      await ctx.services.access.assertVisibleSubjects(ctx.caller, { userIds: b.userId ? [b.userId] : [], organizationIds: b.organizationId ? [b.organizationId] : [] });
      await ctx.services.sharing.grant(resource.id, b, b.role);
      await ctx.services.audit.record(ctx.caller, 'permission.grant', resource.type, resource.id, b);
      return { item: await ctx.services.sharing.permissionsOf(resource) };
    },
  }),
  defineRoute(permissionCalls.grantMany, {
    handler: async (ctx) => {
      const resources = [];
      // Check every item before writing any, so a refused item changes nothing.
      for (const b of ctx.body.items) resources.push((await ctx.services.access.guard(ctx.caller, b.resourceType as ResourceType, b.resourceId, 'share', ctx.adminMode)).resource);
      await ctx.services.access.assertVisibleSubjects(ctx.caller, {
        userIds: ctx.body.items.flatMap((b) => (b.userId ? [b.userId] : [])),
        organizationIds: ctx.body.items.flatMap((b) => (b.organizationId ? [b.organizationId] : [])),
      });
      await ctx.services.sharing.grantAll(ctx.body.items);
      await ctx.services.audit.record(ctx.caller, 'permission.bulk', 'permission', null, ctx.body);
      return { items: await Promise.all(resources.map((r) => ctx.services.sharing.permissionsOf(r))) };
    },
  }),
  defineRoute(permissionCalls.update, {
    handler: async (ctx) => {
      const { perm, resource } = await permissionWithResource(ctx.services, ctx.caller, ctx.params.id, ctx.adminMode);
      await ctx.services.sharing.changeRole(perm.id, ctx.body.role);
      await ctx.services.audit.record(ctx.caller, 'permission.update', resource.type, resource.id, { permissionId: perm.id, role: ctx.body.role });
      return { item: await ctx.services.sharing.permissionsOf(resource) };
    },
  }),
  defineRoute(permissionCalls.revoke, {
    handler: async (ctx) => {
      const { perm, resource } = await permissionWithResource(ctx.services, ctx.caller, ctx.params.id, ctx.adminMode);
      await ctx.services.sharing.revoke(perm.id);
      await ctx.services.audit.record(ctx.caller, 'permission.revoke', resource.type, resource.id, { permissionId: perm.id });
      return undefined;
    },
  }),
  defineRoute(lockCalls.release, {
    handler: async (ctx) => {
      await ctx.services.records.releaseLock(requireCaller(ctx), ctx.resource!);
      return undefined;
    },
  }),
  defineRoute(lockCalls.handOver, {
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const row = ctx.resource!;
      if (row.lock_owner_id && row.lock_owner_id !== caller.user.id && ctx.access !== 'owner' && ctx.access !== 'admin') {
        await ctx.services.records.assertNotLockedByOther(caller, row);
      }
      const target = await ctx.services.auth.callerOfExisting(ctx.body.ownerId);
      const targetAccess = target ? await ctx.services.access.accessOf(target, row, false) : 'none';
      if (!['editor', 'owner'].includes(targetAccess)) {
        // Named in the body: someone who cannot edit the record and whom the caller cannot see (another
        // organization) is "not found", exactly like an unknown id.
        await ctx.services.access.assertVisibleSubjects(caller, { userIds: [ctx.body.ownerId] });
        throw badInput('The new lock owner cannot edit this record');
      }
      const updated = await ctx.services.records.setLockOwner(row, ctx.body.ownerId);
      await ctx.services.audit.record(caller, 'lock.owner', row.type, row.id, ctx.body);
      return recordItem(ctx.services, updated, ctx);
    },
  }),
];
