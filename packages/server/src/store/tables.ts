import type { ColumnType, Generated } from 'kysely';

/** Row types of the catalog, one interface a table (snake_case as stored). */
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

export interface OrganizationsTable {
  id: string;
  name: string;
  maker_quota_policy: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface UsersTable {
  id: string;
  email: string;
  name: string;
  password_hash: string | null;
  is_admin: boolean;
  quota_policy: number;
  screening_status: number | null;
  last_screening_update: Date | null;
  flags: ColumnType<Record<string, boolean>, string | undefined, string>;
  industry: string | null;
  default_org_id: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface MembershipsTable {
  user_id: string;
  organization_id: string;
  role: 'viewer' | 'maker';
  seat: string;
}

export interface SessionsTable {
  id: string;
  /** The sign-in this session descends from by refreshes (migration 017): a reused refresh token ends them all. */
  family_id: string;
  user_id: string;
  access_hash: string;
  refresh_hash: string;
  expires_at: Date;
  refresh_expires_at: Date;
  /** Set once its refresh token was exchanged: the row is kept only to recognise the token's reuse. */
  rotated_at: Date | null;
  created_at: Timestamp;
}

export interface ApiKeysTable {
  id: string;
  user_id: string;
  name: string;
  prefix: string;
  key_hash: string;
  /** `api`: a bearer token; `sdk`: a Data SDK refresh token (migration 012). */
  kind: Generated<'api' | 'sdk'>;
  created_at: Timestamp;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

export interface ResourcesTable {
  id: string;
  type: string;
  owner_id: string;
  organization_id: string | null;
  name: string;
  description: Generated<string>;
  visibility: Generated<'private' | 'public_read'>;
  is_sample: Generated<boolean>;
  import_source: Generated<string | null>;
  latest_state: ColumnType<unknown, string | null | undefined, string | null>;
  attrs: ColumnType<Record<string, unknown>, string | undefined, string>;
  lock_owner_id: Generated<string | null>;
  lock_acquired_at: Generated<Date | null>;
  lock_expires_at: Generated<Date | null>;
  /** The session and browser tab holding the lock (null: taken by an API client, which acts as its user). */
  lock_session_id: Generated<string | null>;
  lock_tab_id: Generated<string | null>;
  thumbnail_key: Generated<string | null>;
  thumbnail_type: Generated<string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ResourceLinksTable {
  resource_id: string;
  linked_id: string;
  created_at: Timestamp;
}

export interface PermissionsTable {
  id: string;
  resource_id: string;
  subject_kind: 'user' | 'organization' | 'email';
  user_id: string | null;
  organization_id: string | null;
  email: string | null;
  role: 'limited-viewer' | 'viewer' | 'editor';
  created_at: Timestamp;
}

export interface TagsTable {
  id: string;
  owner_id: string;
  organization_id: string | null;
  name: string;
  color: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface TagLinksTable {
  tag_id: string;
  resource_type: string;
  resource_id: string;
  created_at: Timestamp;
}

export interface AuditLogTable {
  id: Generated<string>;
  actor_id: string | null;
  actor_email: string | null;
  action: string;
  resource_type: string;
  resource_id: string | null;
  details: ColumnType<unknown, string, string>;
  at: Timestamp;
}

export interface LegalConsentsTable {
  user_id: string;
  agreement_id: string;
  version: string;
  consented_at: Timestamp;
}

export interface InvitationsTable {
  id: string;
  organization_id: string;
  email: string;
  role: 'viewer' | 'maker';
  application: string | null;
  token_hash: string;
  invited_by: string | null;
  created_at: Timestamp;
}

export interface SettingsTable {
  key: string;
  value: string;
}

export interface JobsTable {
  id: string;
  kind: string;
  resource_id: string | null;
  created_by: string | null;
  status: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
  percent: ColumnType<number, number | undefined, number>;
  /** bigint: PostgreSQL answers it as text. */
  rows_done: ColumnType<string | number | null, number | null | undefined, number | null>;
  message: string | null;
  attempt: ColumnType<number, number | undefined, number>;
  node_id: string | null;
  created_at: Timestamp;
  started_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  finished_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  updated_at: Timestamp;
}

/** Error reports from the web app kept without a Sentry DSN (migration 013). */
export interface ClientErrorsTable {
  id: string;
  created_at: Timestamp;
  user_id: string | null;
  kind: 'error' | 'feedback';
  event_id: string | null;
  message: string;
  url: string | null;
  detail: string | null;
}

/** Legal agreement versions published by administrators (migration 014). */
export interface LegalVersionsTable {
  agreement_id: string;
  version: string;
  title: string;
  body: string;
  organization_id: string | null;
  published_by: string | null;
  published_at: Timestamp;
}

export interface PasswordResetsTable {
  id: string;
  user_id: string;
  token_hash: string;
  expires_at: Date;
  used_at: Date | null;
  issued_by: string | null;
  created_at: Timestamp;
}

export interface RecordVersionsTable {
  record_id: string;
  n: number;
  created_at: Timestamp;
  created_by: string | null;
  message: string | null;
  source: 'builder' | 'api' | 'sdk' | 'import' | 'restore';
  schema_version: number | null;
  restored_from: number | null;
  pins: ColumnType<{ datasetId: string; snapshotId: string }[], string | undefined, string>;
  kind: 'full' | 'delta';
  chain: number;
  body: ColumnType<unknown, string | null, string | null>;
  bytes: number;
}

export interface DatasetSnapshotsTable {
  id: string;
  dataset_id: string;
  storage_key: string;
  metadata: ColumnType<Record<string, unknown>, string, string>;
  created_at: ColumnType<Date, Date | string | undefined, Date | string>;
  replaced_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface LockRequestsTable {
  id: string;
  resource_id: string;
  requester_id: string;
  status: 'pending' | 'granted' | 'declined';
  created_at: Timestamp;
  answered_at: Date | null;
}

export interface Database {
  organizations: OrganizationsTable;
  users: UsersTable;
  memberships: MembershipsTable;
  sessions: SessionsTable;
  api_keys: ApiKeysTable;
  resources: ResourcesTable;
  resource_links: ResourceLinksTable;
  permissions: PermissionsTable;
  tags: TagsTable;
  tag_links: TagLinksTable;
  audit_log: AuditLogTable;
  legal_consents: LegalConsentsTable;
  invitations: InvitationsTable;
  settings: SettingsTable;
  jobs: JobsTable;
  client_errors: ClientErrorsTable;
  legal_versions: LegalVersionsTable;
  password_resets: PasswordResetsTable;
  lock_requests: LockRequestsTable;
  record_versions: RecordVersionsTable;
  dataset_snapshots: DatasetSnapshotsTable;
}
