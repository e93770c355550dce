import { z } from 'zod';
import { Id, IsoDate } from './common';

/** Quota values are stored in an unsigned 16-bit field upstream; 65535 is the ceiling (catalog §9). */
export const MAX_QUOTA = 65535;
export const QuotaValue = z.number().int().min(0).max(MAX_QUOTA);

export const OrgRole = z.enum(['viewer', 'maker']);
/** Seat types of a membership (ADM-009); a viewer seat makes the member a viewer, every other a maker. */
export const SEATS = ['standard', 'viewer', 'maker', 'admin'] as const;
export type Seat = (typeof SEATS)[number];
export type OrgRole = z.infer<typeof OrgRole>;

/** Screening status codes (catalog §3): high risk = 1, pending review = 2; null when cleared. */
export const ScreeningStatus = z.union([z.literal(1), z.literal(2), z.null()]);

export const FEATURE_FLAGS = [
  'query-cache',
  'storage-connectors',
  'insights',
  'workbooks',
  'pivot-table',
  'kinetica-layer',
  'dashboard-beta',
] as const;
export const FeatureFlag = z.enum(FEATURE_FLAGS);
export const Flags = z.record(z.string(), z.boolean());

export const Membership = z.object({ organizationId: Id, organizationName: z.string(), role: OrgRole, seat: z.string() });

export const User = z.object({
  id: Id,
  email: z.string(),
  name: z.string(),
  isAdmin: z.boolean(),
  quotaPolicy: QuotaValue,
  screeningStatus: ScreeningStatus,
  lastScreeningUpdate: IsoDate.nullable(),
  organization: z.object({ id: Id, name: z.string() }).nullable(),
  organizationSeatMap: z.record(z.string(), z.string()),
  memberships: z.array(Membership),
  flags: Flags.optional(),
  createdAt: IsoDate,
  updatedAt: IsoDate,
});
export type User = z.infer<typeof User>;

export const SignInBody = z.object({ email: z.string().min(1).max(320), password: z.string().min(1).max(1024) });
/** A signed-in user's new password, with the current one as proof (an open session alone is not enough). */
export const PasswordResetRequestBody = z.object({ email: z.string().trim().min(1).max(320) });
export const PasswordResetBody = z.object({
  token: z.string().min(1).max(200),
  newPassword: z.string().min(8, 'Password must have at least 8 characters').max(1024),
});
/** A reset link an administrator issues: shown once, like an invitation link. */
export const PasswordResetLink = z.object({ url: z.string(), expiresAt: z.string() });
export type PasswordResetLink = z.infer<typeof PasswordResetLink>;
export const PasswordChangeBody = z.object({
  currentPassword: z.string().min(1).max(1024),
  newPassword: z.string().min(8, 'Password must have at least 8 characters').max(1024),
});
export const Session = z.object({
  accessToken: z.string(),
  refreshToken: z.string(),
  expiresAt: IsoDate,
  user: User,
});
export type Session = z.infer<typeof Session>;
export const RefreshBody = z.object({ refreshToken: z.string().min(1).max(512) });

export const Organization = z.object({
  id: Id,
  name: z.string(),
  makerQuotaPolicy: QuotaValue,
  makerRoleUsersCount: z.number().int(),
  viewerRoleUsersCount: z.number().int(),
  createdAt: IsoDate,
  updatedAt: IsoDate,
});
export type Organization = z.infer<typeof Organization>;
export const OrganizationBody = z.object({
  name: z.string().trim().min(1).max(200),
  makerQuotaPolicy: QuotaValue.optional(),
});

export const Quota = z.object({ quotaPolicy: QuotaValue, quotaUsage: z.record(z.string(), z.number().int()) });
export type Quota = z.infer<typeof Quota>;

/**
 * `api`: a bearer token sent as it is (`sk_…`). `sdk`: a Studio Data SDK refresh token (`v1.…`), sent only to
 * /sdk/oauth/token for an access token that lasts an hour; revoking the key stops both.
 */
export const API_KEY_KINDS = ['api', 'sdk'] as const;
export const ApiKeyKind = z.enum(API_KEY_KINDS);
export type ApiKeyKind = z.infer<typeof ApiKeyKind>;

export const ApiKey = z.object({
  id: Id,
  name: z.string(),
  kind: ApiKeyKind,
  prefix: z.string(),
  createdAt: IsoDate,
  lastUsedAt: IsoDate.nullable(),
  /** Present once, in the answer to generate; only a hash is stored. */
  key: z.string().optional(),
});
export type ApiKey = z.infer<typeof ApiKey>;
export const ApiKeyCreate = z.object({ name: z.string().trim().min(1).max(200).default('API key'), kind: ApiKeyKind.default('api') });
export const ApiKeyUpdate = z.object({ id: Id, name: z.string().trim().min(1).max(200) });
export const ApiKeyRevoke = z.object({ id: Id });

export const LEGAL_AGREEMENTS = ['studio-tos', 'fsq-sample-data', 'fsq-bi', 'fsq-despp'] as const;
export const LegalAgreementId = z.enum(LEGAL_AGREEMENTS);
export const LegalAgreement = z.object({ id: LegalAgreementId, version: z.string(), title: z.string(), text: z.string() });
export const Consent = z.object({ agreementId: LegalAgreementId, version: z.string(), consentedAt: IsoDate.nullable() });
export type LegalAgreementId = z.infer<typeof LegalAgreementId>;
export type LegalAgreement = z.infer<typeof LegalAgreement>;
export type Consent = z.infer<typeof Consent>;

/** A new version of an agreement, published by an administrator for everyone or one organization's members. */
export const LegalVersionBody = z.object({
  title: z.string().trim().min(1).max(200),
  text: z.string().trim().min(1).max(50_000),
  organizationId: z.uuid().nullable().default(null),
});
export type LegalVersionBody = z.infer<typeof LegalVersionBody>;

/** A pending invitation as administrators see it (ADM-001): whom, into which organization, as what, by whom, since when. */
export const PendingInvitation = z.object({
  id: Id,
  organizationId: Id,
  organizationName: z.string(),
  email: z.string(),
  role: OrgRole,
  application: z.string().nullable(),
  /** The inviting administrator's email; null once that account is gone. */
  invitedBy: z.string().nullable(),
  createdAt: IsoDate,
});
export type PendingInvitation = z.infer<typeof PendingInvitation>;

/**
 * A new invitation, or one sent again (ADM-002 for an address already invited into the organization: a new token,
 * the old link stops working). The token and link are answered here only; `emailed` says whether SMTP sent the link.
 */
export const InvitationCreated = z.object({
  id: Id,
  organizationId: Id,
  email: z.string(),
  role: OrgRole,
  application: z.string().nullable(),
  token: z.string(),
  acceptUrl: z.string(),
  emailed: z.boolean(),
  resent: z.boolean(),
  createdAt: IsoDate,
});
export type InvitationCreated = z.infer<typeof InvitationCreated>;

/** What merging accounts would move to the primary (GET /v1/admin/merge-accounts/preview): records by type, tags, organizations it joins, accounts deleted. */
export const MergePreview = z.object({
  records: z.record(z.string(), z.number()),
  tags: z.number(),
  joinsOrganizations: z.array(z.string()),
  deletedAccounts: z.array(z.string()),
});
export type MergePreview = z.infer<typeof MergePreview>;
