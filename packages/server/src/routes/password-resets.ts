import { passwordResetCalls } from '@studio/schema';
import { defineRoute, requireCaller } from '../http/route';

/**
 * Forgotten passwords (none of these is in the documents; docs/decisions.md "Password change and reset"):
 * a request by email, the reset with the link's token, and an administrator's link for studios without SMTP.
 */
export const passwordResetRoutes = [
  defineRoute(passwordResetCalls.request, {
    rateLimit: 'passwordReset',
    transaction: false,
    handler: async ({ body, services }) => {
      await services.passwordResets.request(body.email);
      return { item: { emailed: services.passwordResets.mails } };
    },
  }),
  defineRoute(passwordResetCalls.reset, {
    rateLimit: 'passwordReset',
    transaction: false,
    handler: async ({ body, services }) => {
      const userId = await services.passwordResets.complete(body.token, body.newPassword);
      await services.units.run(async () => services.audit.record(await services.auth.callerOf(userId, 'session', ''), 'auth.password-reset', 'user', userId));
      return undefined;
    },
  }),
  defineRoute(passwordResetCalls.adminLink, {
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const link = await ctx.services.passwordResets.issueFor(ctx.params.id, caller);
      await ctx.services.audit.record(caller, 'user.password-reset-link', 'user', ctx.params.id);
      return { item: { url: link.url, expiresAt: link.expiresAt.toISOString() } };
    },
  }),
];
