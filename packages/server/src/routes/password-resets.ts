import { z } from 'zod';
import { Id, PasswordResetBody, PasswordResetLink, PasswordResetRequestBody } from '@studio/schema';
import { defineRoute, requireCaller } from '../http/route';

/**
 * Forgotten passwords (none of these is in the documents; docs/decisions.md "Password change and reset"):
 * a request by email, the reset with the link's token, and an administrator's link for studios without SMTP.
 */
export const passwordResetRoutes = [
  defineRoute({
    method: 'POST',
    url: '/v1/auth/password-reset/request',
    summary: 'Ask for a reset link by email: mailed when the address is an account and SMTP is set; the same answer either way (emailed: whether this studio mails links at all)',
    tag: 'auth',
    auth: 'public',
    rateLimit: 'passwordReset',
    transaction: false,
    body: PasswordResetRequestBody,
    status: 202,
    response: z.object({ item: z.object({ emailed: z.boolean() }) }),
    handler: async ({ body, services }) => {
      await services.passwordResets.request(body.email);
      return { item: { emailed: services.passwordResets.mails } };
    },
  }),
  defineRoute({
    method: 'POST',
    url: '/v1/auth/password-reset',
    summary: "Set a new password with a reset link's token (404 when invalid, used or past its hour); every session of the account ends",
    tag: 'auth',
    auth: 'public',
    rateLimit: 'passwordReset',
    transaction: false,
    body: PasswordResetBody,
    status: 204,
    handler: async ({ body, services }) => {
      const userId = await services.passwordResets.complete(body.token, body.newPassword);
      await services.units.run(async () => services.audit.record(await services.auth.callerOf(userId, 'session', ''), 'auth.password-reset', 'user', userId));
      return undefined;
    },
  }),
  defineRoute({
    method: 'POST',
    url: '/v1/admin/users/{id}/password-reset',
    summary: "An administrator's reset link for a user (shown once; it works once, for an hour)",
    tag: 'admin',
    auth: 'admin',
    params: z.object({ id: Id }),
    status: 201,
    response: z.object({ item: PasswordResetLink }),
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const link = await ctx.services.passwordResets.issueFor(ctx.params.id, caller);
      await ctx.services.audit.record(caller, 'user.password-reset-link', 'user', ctx.params.id);
      return { item: { url: link.url, expiresAt: link.expiresAt.toISOString() } };
    },
  }),
];
