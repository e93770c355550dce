import { z } from 'zod';
import { Id } from '../common';
import { PasswordResetBody, PasswordResetLink, PasswordResetRequestBody } from '../identity';
import { contract } from './contract';

/**
 * Forgotten passwords (none of these is in the documents; docs/decisions.md "Password change and reset"):
 * a request by email, the reset with the link's token, and an administrator's link for studios without SMTP.
 */
export const passwordResetCalls = {
  request: contract({
    method: 'POST',
    url: '/v1/auth/password-reset/request',
    summary: 'Ask for a reset link by email: mailed when the address is an account and SMTP is set; the same answer either way (emailed: whether this studio mails links at all)',
    tag: 'auth',
    auth: 'public',
    body: PasswordResetRequestBody,
    status: 202,
    response: z.object({ item: z.object({ emailed: z.boolean() }) }),
  }),
  reset: contract({
    method: 'POST',
    url: '/v1/auth/password-reset',
    summary: "Set a new password with a reset link's token (404 when invalid, used or past its hour); every session of the account ends",
    tag: 'auth',
    auth: 'public',
    body: PasswordResetBody,
    status: 204,
  }),
  adminLink: contract({
    method: 'POST',
    url: '/v1/admin/users/{id}/password-reset',
    summary: "An administrator's reset link for a user (shown once; it works once, for an hour)",
    tag: 'admin',
    auth: 'admin',
    params: z.object({ id: Id }),
    status: 201,
    response: z.object({ item: PasswordResetLink }),
  }),
};
