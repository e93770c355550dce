import { z } from 'zod';
import { itemOf } from '../common';
import { PasswordChangeBody, RefreshBody, Session, SignInBody } from '../identity';
import { contract } from './contract';

/** Signing in and out: sessions, their refresh, a password change, and accepting an invitation. */
export const authCalls = {
  signIn: contract({
    method: 'POST',
    url: '/v1/auth/sign-in',
    summary: 'Sign in with email and password; after repeated failures from an address, 429 with Retry-After (growing back-off)',
    tag: 'auth',
    auth: 'public',
    body: SignInBody,
    response: itemOf(Session),
  }),
  refresh: contract({
    method: 'POST',
    url: '/v1/auth/refresh',
    summary: 'Exchange a refresh token for a new session (the token is single-use). A refresh token already exchanged and presented again ends its whole sign-in session (every access and refresh token refreshes made of it; 401): two holders of one token cannot be told apart (OAuth 2.0 Security BCP §4.14)',
    tag: 'auth',
    auth: 'public',
    body: RefreshBody,
    response: itemOf(Session),
  }),
  changePassword: contract({
    method: 'POST',
    url: '/v1/auth/password',
    summary: "Change the signed-in user's password, given the current one (403 when wrong; throttled like sign-in); the user's other sessions end",
    tag: 'auth',
    auth: 'user',
    body: PasswordChangeBody,
    status: 204,
  }),
  signOut: contract({ method: 'POST', url: '/v1/auth/sign-out', summary: 'End the current session; the edit locks its tabs held are released', tag: 'auth', auth: 'user', status: 204 }),
  acceptInvitation: contract({
    method: 'POST',
    url: '/v1/auth/accept-invitation',
    summary: 'Accept an invitation: creates the account (name, password) in the inviting organization and signs in',
    tag: 'auth',
    auth: 'public',
    body: z.object({ token: z.string().min(1).max(200), name: z.string().trim().min(1).max(200), password: z.string().min(8, 'Password must have at least 8 characters').max(1024) }),
    status: 201,
    response: itemOf(Session),
  }),
};
