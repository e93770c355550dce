import { authCalls } from '@studio/schema';
import { defineRoute, requireCaller } from '../http/route';
import type { Services } from '../services';
import type { IssuedSession } from '../services/auth';

async function sessionToWire(services: Services, s: IssuedSession) {
  const user = (await services.users.userById(s.userId))!;
  return { item: { accessToken: s.accessToken, refreshToken: s.refreshToken, expiresAt: s.expiresAt.toISOString(), user: await services.users.userToWire(user) } };
}

export const authRoutes = [
  defineRoute(authCalls.signIn, {
    transaction: false,
    handler: async ({ req, body, services }) => {
      // The password check (scrypt) runs outside the unit of work: it would hold the catalog meanwhile.
      const userId = await services.auth.checkPassword(body.email, body.password, req.ip);
      return services.units.run(async () => {
        const session = await services.auth.issue(userId);
        const caller = await services.auth.callerOf(session.userId, 'session', '');
        await services.audit.record(caller, 'auth.sign-in', 'user', session.userId);
        return sessionToWire(services, session);
      });
    },
  }),
  defineRoute(authCalls.refresh, {
    // The reuse check's sign-out must be kept although the call answers 401: AuthService.refresh groups its own writes.
    transaction: false,
    handler: async ({ body, services }) => sessionToWire(services, await services.auth.refresh(body.refreshToken)),
  }),
  defineRoute(authCalls.changePassword, {
    transaction: false,
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      // Two scrypt runs (check and new hash) stay outside a unit of work, as sign-in's check does.
      await ctx.services.auth.changePassword(caller, ctx.body.currentPassword, ctx.body.newPassword, ctx.req.ip);
      await ctx.services.units.run(() => ctx.services.audit.record(caller, 'auth.password-change', 'user', caller.user.id));
      return undefined;
    },
  }),
  defineRoute(authCalls.signOut, {
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      if (caller.via === 'session') await ctx.services.records.releaseSessionLocks(caller.credentialId);
      await ctx.services.auth.signOut(caller);
      await ctx.services.audit.record(caller, 'auth.sign-out', 'user', caller.user.id);
      return undefined;
    },
  }),
  defineRoute(authCalls.acceptInvitation, {
    rateLimit: 'acceptInvitation',
    handler: async ({ body, services }) => {
      const { user, invitation } = await services.users.acceptInvitation(body.token, body);
      const caller = await services.auth.callerOf(user.id, 'session', '');
      await services.audit.record(caller, 'invitation.accept', 'organization', invitation.organization_id, { email: invitation.email });
      return sessionToWire(services, await services.auth.issue(user.id));
    },
  }),
];
