import type { StudioConfig } from './config';
import type { Db } from './store/db';
import { generatePassword } from './auth/passwords';
import { createOrganization, createUser } from './services/users';
import type { Services } from './services';
import type { Caller } from './http/caller';

export const DEFAULT_ORG_NAME = 'Default organization';

/**
 * First start: when the catalog has no users, create the first administrator (from
 * STUDIO_ADMIN_EMAIL / STUDIO_ADMIN_PASSWORD, else admin@studio.local with a one-time password that
 * is printed once) as a maker of a default organization.
 */
export async function ensureFirstAdmin(db: Db, config: StudioConfig, print: (line: string) => void): Promise<void> {
  const any = await db.selectFrom('users').select('id').limit(1).executeTakeFirst();
  if (any) return;
  const email = config.adminEmail ?? 'admin@studio.local';
  const password = config.adminPassword ?? generatePassword();
  const org = await createOrganization(db, DEFAULT_ORG_NAME);
  await createUser(db, { email, name: 'Administrator', password, isAdmin: true, organizationId: org.id, role: 'maker' });
  if (!config.adminPassword) {
    print('');
    print('  First start: an administrator was created.');
    print(`    sign in at ${config.publicUrl}/sign-in`);
    print(`    email:    ${email}`);
    print(`    password: ${password}   (shown once; set STUDIO_ADMIN_PASSWORD to choose it)`);
    print('');
  }
}

/** The oldest administrator, as the owner of the sample records. */
export async function firstAdminCaller(services: Services): Promise<Caller | null> {
  const admin = await services.db.selectFrom('users').select('id').where('is_admin', '=', true).orderBy('created_at').limit(1).executeTakeFirst();
  return admin ? services.auth.callerOf(admin.id, 'session', 'bootstrap') : null;
}
