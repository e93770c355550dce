import { z } from 'zod';
import { PasswordChangeBody, RefreshBody, Session, SignInBody, itemOf } from '@studio/schema';
import { defineRoute, requireCaller } from '../http/route';
import type { Services } from '../services';
import type { IssuedSession } from '../services/auth';

async function sessionToWire(services: Services, s: IssuedSession) {
  const user = (await services.users.userById(s.userId))!;
  return { item: { accessToken: s.accessToken, refreshToken: s.refreshToken, expiresAt: s.expiresAt.toISOString(), user: await services.users.userToWire(user) } };
}

export const authRoutes = [
  defineRoute({
    method: 'POST',
    url: '/v1/auth/sign-in',
    summary: 'Sign in with email and password; after repeated failures from an address, 429 with Retry-After (growing back-off)',
    tag: 'auth',
    auth: 'public',
    transaction: false,
    body: SignInBody,
    response: itemOf(Session),
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
  defineRoute({
    method: 'POST',
    url: '/v1/auth/refresh',
    summary: 'Exchange a refresh token for a new session (the token is single-use). A refresh token already exchanged and presented again ends its whole sign-in session (every access and refresh token refreshes made of it; 401): two holders of one token cannot be told apart (OAuth 2.0 Security BCP §4.14)',
    tag: 'auth',
    auth: 'public',
    // The reuse check's sign-out must be kept although the call answers 401: AuthService.refresh groups its own writes.
    transaction: false,
    body: RefreshBody,
    response: itemOf(Session),
    handler: async ({ body, services }) => sessionToWire(services, await services.auth.refresh(body.refreshToken)),
  }),
  defineRoute({
    method: 'POST',
    url: '/v1/auth/password',
    summary: "Change the signed-in user's password, given the current one (403 when wrong; throttled like sign-in); the user's other sessions end",
    tag: 'auth',
    auth: 'user',
    transaction: false,
    body: PasswordChangeBody,
    status: 204,
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      // Two scrypt runs (check and new hash) stay outside a unit of work, as sign-in's check does.
      await ctx.services.auth.changePassword(caller, ctx.body.currentPassword, ctx.body.newPassword, ctx.req.ip);
      await ctx.services.units.run(() => ctx.services.audit.record(caller, 'auth.password-change', 'user', caller.user.id));
      return undefined;
    },
  }),
  defineRoute({
    method: 'POST',
    url: '/v1/auth/sign-out',
    summary: 'End the current session; the edit locks its tabs held are released',
    tag: 'auth',
    auth: 'user',
    status: 204,
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      if (caller.via === 'session') await ctx.services.records.releaseSessionLocks(caller.credentialId);
      await ctx.services.auth.signOut(caller);
      await ctx.services.audit.record(caller, 'auth.sign-out', 'user', caller.user.id);
      return undefined;
    },
  }),

  defineRoute({
    method: 'POST',
    url: '/v1/auth/accept-invitation',
    summary: 'Accept an invitation: creates the account (name, password) in the inviting organization and signs in',
    tag: 'auth',
    auth: 'public',
    body: z.object({ token: z.string().min(1).max(200), name: z.string().trim().min(1).max(200), password: z.string().min(8, 'Password must have at least 8 characters').max(1024) }),
    status: 201,
    rateLimit: 'acceptInvitation',
    response: itemOf(Session),
    handler: async ({ body, services }) => {
      const { user, invitation } = await services.users.acceptInvitation(body.token, body);
      const caller = await services.auth.callerOf(user.id, 'session', '');
      await services.audit.record(caller, 'invitation.accept', 'organization', invitation.organization_id, { email: invitation.email });
      return sessionToWire(services, await services.auth.issue(user.id));
    },
  }),
];
