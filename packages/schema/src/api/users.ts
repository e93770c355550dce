import { z } from 'zod';
import { Id, QueryBool, itemOf } from '../common';
import { Flags, OrgRole, Quota, ScreeningStatus, User } from '../identity';
import { contract } from './contract';

const tag = 'users';
const IdParams = z.object({ id: Id });
const ScreeningUpdate = z.object({ userId: Id, status: ScreeningStatus });

/** The signed-in user and their profile (catalog §7 Users); the administrators' user calls are in admin.ts. */
export const userCalls = {
  me: contract({ spec: ['CAT-178'], method: 'GET', url: '/v1/users/me', response: itemOf(User), summary: 'The signed-in user', tag, auth: 'user', query: z.object({ includeFlags: QueryBool.optional() }) }),
  myQuota: contract({ spec: ['CAT-179'], method: 'GET', url: '/v1/users/me/quota', summary: 'Quota policy and usage of the signed-in user', tag, auth: 'user', response: itemOf(Quota) }),
  myFlags: contract({ spec: ['CAT-180'], method: 'GET', url: '/v1/users/me/flags', summary: 'Feature flags of the signed-in user', tag, auth: 'user', response: itemOf(Flags) }),
  myGoogle: contract({
    spec: ['CAT-181'],
    method: 'GET',
    url: '/v1/users/me/google',
    summary: 'The Google account linked to the signed-in user (self-hosted studios sign in with email: none)',
    tag,
    auth: 'user',
    response: itemOf(z.object({ linked: z.boolean(), email: z.string().nullable() })),
  }),
  industries: contract({ spec: ['CAT-182'], method: 'GET', url: '/v1/users/industries', summary: 'Industries a profile can name', tag, auth: 'user', response: z.object({ items: z.array(z.string()) }) }),
  seats: contract({
    spec: ['CAT-183'],
    method: 'GET',
    url: '/v1/users/{id}/seat',
    summary: "A user's seats per organization (self or administrator)",
    tag,
    auth: 'user',
    params: IdParams,
    response: itemOf(z.object({ userId: Id, seats: z.array(z.object({ organizationId: Id, role: OrgRole, seat: z.string() })) })),
  }),
  update: contract({
    spec: ['CAT-184'],
    method: 'PUT',
    url: '/v1/users/{id}',
    response: itemOf(User),
    summary: 'Update a user: a user may rename themself; administrators may change anything',
    tag,
    auth: 'user',
    params: IdParams,
    body: z.object({ name: z.string().trim().min(1).max(200).optional(), industry: z.string().max(100).optional(), isAdmin: z.boolean().optional(), flags: Flags.optional() }),
  }),
  moveToOrganization: contract({
    spec: ['CAT-185'],
    method: 'PUT',
    url: '/v1/users/{id}/organization/{orgId}',
    response: itemOf(User),
    summary: 'Move a user into an organization (it becomes their home organization)',
    tag,
    auth: 'admin',
    params: z.object({ id: Id, orgId: Id }),
    body: z.object({ role: z.enum(['viewer', 'maker']).optional() }).optional(),
  }),
  setScreeningStatus: contract({
    spec: ['CAT-186'],
    method: 'PUT',
    url: '/v1/users/screening-status',
    summary: 'Set screening status of users (1 high risk, 2 pending review, null cleared)',
    tag,
    auth: 'admin',
    body: z.object({ updates: z.array(ScreeningUpdate).min(1).max(1000) }),
    response: z.object({ items: z.array(ScreeningUpdate) }),
  }),
};
