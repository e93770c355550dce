import { RefreshBody, SignInBody } from '@studio/schema';
import { defineRoute, requireCaller } from '../http/route';
import { userToWire } from '../services/users';
import type { Services } from '../services';
import type { IssuedSession } from '../services/auth';

async function sessionToWire(services: Services, s: IssuedSession) {
  const user = await services.db.selectFrom('users').selectAll().where('id', '=', s.userId).executeTakeFirstOrThrow();
  return { item: { accessToken: s.accessToken, refreshToken: s.refreshToken, expiresAt: s.expiresAt.toISOString(), user: await userToWire(services.db, user) } };
}

export const authRoutes = [
  defineRoute({
    method: 'POST',
    url: '/v1/auth/sign-in',
    summary: 'Sign in with email and password',
    tag: 'auth',
    auth: 'public',
    body: SignInBody,
    handler: async ({ body, services }) => {
      const session = await services.auth.signIn(body.email, body.password);
      const caller = await services.auth.callerOf(session.userId, 'session', '');
      await services.audit.record(caller, 'auth.sign-in', 'user', session.userId);
      return sessionToWire(services, session);
    },
  }),
  defineRoute({
    method: 'POST',
    url: '/v1/auth/refresh',
    summary: 'Exchange a refresh token for a new session',
    tag: 'auth',
    auth: 'public',
    body: RefreshBody,
    handler: async ({ body, services }) => sessionToWire(services, await services.auth.refresh(body.refreshToken)),
  }),
  defineRoute({
    method: 'POST',
    url: '/v1/auth/sign-out',
    summary: 'End the current session',
    tag: 'auth',
    auth: 'user',
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      await ctx.services.auth.signOut(caller);
      await ctx.services.audit.record(caller, 'auth.sign-out', 'user', caller.user.id);
      return undefined;
    },
  }),
];
