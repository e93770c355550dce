import { sql, type Kysely } from 'kysely';
import { versionTable } from './006-catalog-version';

/**
 * Versions of the legal agreements an administrator publishes, for everyone or one organization's members.
 * Without one, an agreement is the studio's built-in text. A published version the user has not consented to
 * is shown at sign-in; consent stays recorded per user and version (legal_consents).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table legal_versions (
    agreement_id text not null,
    version text not null,
    title text not null,
    body text not null,
    organization_id uuid references organizations(id) on delete cascade,
    published_by uuid references users(id) on delete set null,
    published_at timestamptz not null default now(),
    primary key (agreement_id, version)
  )`.execute(db);
  await versionTable(db, 'legal_versions');
}
