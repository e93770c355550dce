import { sql, type Kysely } from 'kysely';

/**
 * One pending invitation per person and organization (the rule `OrganizationService.invite` keeps by sending an
 * existing invitation again): two invitations sent at once could both insert. Duplicates already made are folded
 * into the newest (its token is the one last handed out), then a unique index holds the rule.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`delete from invitations i using invitations newer
    where newer.organization_id = i.organization_id and newer.email = i.email
      and (newer.created_at, newer.id) > (i.created_at, i.id)`.execute(db);
  await sql`create unique index invitations_organization_email on invitations (organization_id, email)`.execute(db);
}
